/** A file system error as a sentence about the path the agent named, for the call's error result. */
export function fileError(path: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const name = JSON.stringify(path);
  switch (code) {
    case "ENOENT":
      return new Error(`${name} does not exist in the workspace.`);
    case "EISDIR":
      return new Error(`${name} is a directory, not a file.`);
    case "ENOTDIR":
      return new Error(`${name} passes through something that is not a directory.`);
    case "EACCES":
    case "EPERM":
      return new Error(`${name} may not be accessed (permission denied).`);
    case "ELOOP":
      return new Error(`${name} became a symbolic link while it was being opened, so it was not followed.`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}
