type PathOf<R extends string> = R extends `${string} ${infer P}` ? P : never;

/** The method of a declared route ("GET /groups/:id" → "GET"). */
export const method = (route: string) => route.slice(0, route.indexOf(" "));

/** The path of a declared route, typed as its literal so Hono knows its parameters. */
export const path = <R extends string>(route: R) => route.slice(route.indexOf(" ") + 1) as PathOf<R>;
