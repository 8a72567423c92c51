/**
 * Runs `stop` once, on the first of Ctrl-C, SIGTERM or SIGHUP (a second signal while it runs changes nothing), then
 * exits: 0 when it finished, 1 when it failed, saying why.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => Promise<unknown>, failure: string) {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`${failure}: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
    });
}
