import fc from "fast-check";
import { beforeAll, expect, test } from "vitest";
import { builtinGroups } from "../builtin/groups";
import type { ToolDefinition } from "../tool/schema";
import { readPolicy } from "./cedar/read";
import { decideCall } from "./evaluate";
import { storedPolicy } from "./manage";
import type { StoredPolicy } from "./schema";
import { SHIPPED_POLICIES } from "./shipped";
import { compileRule } from "./short-rule";

const runCommand = builtinGroups()
  .flatMap((group) => group.tools)
  .find((tool) => tool.function.name === "run_command") as ToolDefinition;

let enforced: StoredPolicy[];

async function stored(id: string, cedar: string): Promise<StoredPolicy> {
  const read = await readPolicy(cedar);
  if (!read.ok) throw new Error(`${id}: ${read.problems.map((problem) => problem.message).join("; ")}`);
  return storedPolicy({ id, input: { scope: "system", mode: "enforce", cedar }, cedar, read: read.read, ifMatch: undefined, now: "2026-11-28T00:00:00Z", previous: undefined });
}

beforeAll(async () => {
  const shipped = SHIPPED_POLICIES.filter((policy) => policy.id !== "command-allowlist").map((policy) => stored(policy.id, "cedar" in policy.input ? policy.input.cedar : ""));
  const rules = (
    [
      ["no-rm", { tool: "run_command", match: "rm *", effect: "deny" }],
      ["ask-before-push", { tool: "run_command", match: "git push *", effect: "ask" }],
    ] as const
  ).map(([id, rule]) => {
    const compiled = compileRule(rule, runCommand);
    if ("problem" in compiled) throw new Error(compiled.problem);
    return stored(id, compiled.cedar);
  });
  enforced = await Promise.all([...shipped, ...rules]);
});

async function effectOf(command: string): Promise<string> {
  try {
    const { decision } = await decideCall({
      principal: { agentId: "agt_1", roleId: "rol_1", roleName: "coder", department: null, level: null },
      definition: runCommand,
      group: "command",
      args: { command, timeoutMs: 30_000 },
      root: "/work/app",
      revision: 1,
      applicable: { enforce: enforced, logOnly: [] },
    });
    return decision.effect;
  } catch (error) {
    return `refused: ${(error as { code?: string }).code}`;
  }
}

const shellQuoted = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/** How a program's name may be written: by path, escaped, quoted in part or whole. */
const spelled = (name: string) =>
  fc.constantFrom(name, `/bin/${name}`, `/usr/bin/${name}`, `\\${name}`, `${name[0]}''${name.slice(1)}`, `"${name}"`, `'${name}'`, `${name[0]}\\${name.slice(1)}`, `$'${name}'`, `${name[0]}""${name.slice(1)}`);

/** An argument as written: bare, quoted, or escaped. */
const quoted = (word: string) => fc.constantFrom(word, `'${word}'`, `"${word}"`, word.replace(/^(.)/, "$1''"));

/** Commands the rules refuse, each with how: rm is denied by name, git push waits for an operator. */
const refusedCommand = fc.oneof(
  fc.tuple(spelled("rm"), fc.constantFrom(["-rf", "/"], ["-r", "build"], ["x"], ["-fr", "~"], ["/", "-rf"], ["-r", "--force", "/tmp"]).chain((args) => fc.tuple(...args.map(quoted)))).map(([name, args]) => ({
    line: [name, ...args].join(" "),
    refusals: ["deny"],
  })),
  fc.tuple(spelled("git"), fc.constantFrom([], ["-C", "."], ["--no-pager"], ["-c", "color.ui=always"], ["--git-dir=.git"]), fc.constantFrom(["push"], ["push", "origin", "main"], ["push", "--force"])).map(([name, globals, push]) => ({
    line: [name, ...globals, ...push].join(" "),
    refusals: ["ask", "deny"],
  })),
);

/** Ways to run a command line inside another: wrappers, interpreters handed the line, compound commands, substitutions. */
const WRAPPINGS: ReadonlyArray<(line: string) => string> = [
  (line) => `nohup ${line}`,
  (line) => `env ${line}`,
  (line) => `env FOO=1 ${line}`,
  (line) => `env -i -- ${line}`,
  (line) => `command ${line}`,
  (line) => `exec ${line}`,
  (line) => `nice -n 5 ${line}`,
  (line) => `timeout -s KILL 5 ${line}`,
  (line) => `time ${line}`,
  (line) => `/usr/bin/time -o t.txt ${line}`,
  (line) => `stdbuf -oL ${line}`,
  (line) => `sudo -u root ${line}`,
  (line) => `doas ${line}`,
  (line) => `busybox ${line}`,
  (line) => `setsid ${line}`,
  (line) => `flock /tmp/lock ${line}`,
  (line) => `echo a | xargs ${line}`,
  (line) => `watch -n 1 ${shellQuoted(line)}`,
  (line) => `bash -c ${shellQuoted(line)}`,
  (line) => `sh -lc ${shellQuoted(line)}`,
  (line) => `eval ${shellQuoted(line)}`,
  (line) => `su root -c ${shellQuoted(line)}`,
  (line) => `git submodule foreach ${shellQuoted(line)}`,
  (line) => `echo $( ${line} )`,
  (line) => `echo "\`${line.replace(/[`\\$"]/g, "\\$&")}\`"`,
  (line) => `cat <( ${line} )`,
  (line) => `( ${line} )`,
  (line) => `{ ${line}; }`,
  (line) => `if true; then ${line}; fi`,
  (line) => `git status && ${line}`,
  (line) => `false || ${line}`,
  (line) => `${line} &`,
  (line) => `echo ok; ${line}`,
  (line) => `f() { ${line}; }; f`,
  (line) => `bash <<'EOF'\n${line}\nEOF\n`,
];

const wrapping = fc.constantFrom(...WRAPPINGS);

test("decideCall - property: any composition of wrappers, quoting and spelling around a refused command is refused", async () => {
  await fc.assert(
    fc.asyncProperty(refusedCommand, fc.array(wrapping, { maxLength: 3 }), async ({ line, refusals }, wrappers) => {
      const composed = wrappers.reduce((inner, wrap) => wrap(inner), line);
      const effect = await effectOf(composed);
      expect(effect === "deny" || refusals.includes(effect) || effect.startsWith("refused: "), `${JSON.stringify(composed)} → ${effect}`).toBe(true);
    }),
    { numRuns: 400 },
  );
});

test("decideCall - ordinary lines under the same rules run, whatever wraps them", async () => {
  for (const line of ["git status", "ls -la", "npm test", "make build"])
    for (const wrap of [(text: string) => text, (text: string) => `nohup ${text}`, (text: string) => `timeout 60 ${text}`, (text: string) => `(${text})`, (text: string) => `git status && ${text}`])
      expect(await effectOf(wrap(line)), wrap(line)).toBe("none");
});

test("decideCall - the shipped dangerous-commands policy alone denies rm in any flag order and spelling, dd in any order, mkfs by any name and a fork bomb by any name", async () => {
  const dangerous = enforced.filter((policy) => policy.id === "dangerous-commands");
  const decide = async (command: string) =>
    (
      await decideCall({
        principal: { agentId: "agt_1", roleId: "rol_1", roleName: "coder", department: null, level: null },
        definition: runCommand,
        group: "command",
        args: { command, timeoutMs: 30_000 },
        root: null,
        revision: 1,
        applicable: { enforce: dangerous, logOnly: [] },
      })
    ).decision.effect;
  const denied = [
    "rm -rfv /",
    "rm / -rf",
    "rm -r --force /",
    "rm --recursive /home",
    "rm --recur -f /",
    "rm -rf -- ~",
    "rm -rf ~/",
    'rm -rf "$HOME"',
    "rm -Rf /*",
    "sudo rm -rf /",
    "/bin/rm -fr /",
    "find / -delete",
    "dd if=/dev/zero of=/dev/sda",
    "dd of=/dev/sda if=/dev/zero bs=1M",
    "dd bs=1M if=/dev/sda",
    "mkfs /dev/sda1",
    "mkfs.ext4 /dev/sda1",
    "mke2fs /dev/sda1",
    "/sbin/mkswap /dev/sda2",
    "wipefs -a /dev/sda",
    ":(){ :|:& };:",
    "bomb() { bomb | bomb & }; bomb",
  ];
  for (const line of denied) expect(await decide(line), line).toBe("deny");
  for (const line of ["rm -rf build", "rm -f /tmp/x", "rm -r ./dist", "echo mkfs", "git rm -r --cached x", "ddate", "f() { echo; }; f"]) expect(await decide(line), line).toBe("none");
});
