let stdio: Promise<typeof import("./stdio")> | undefined;

/** The stdio executor, loaded on a stdio group's first import or call (or when its runtime stops the processes). */
export const loadStdio = () => (stdio ??= import("./stdio"));
