import fc from "fast-check";
import { expect, test } from "vitest";
import { readShellLine } from "./line";

type Split = { commands: string[]; substitution: boolean };

function split(line: string): Split {
  const result = readShellLine(line);
  if ("problem" in result) throw new Error(`${JSON.stringify(line)} was refused: ${result.problem}`);
  return { commands: result.commands.map((command) => command.text), substitution: result.substitution };
}

const commandsOf = (line: string) => split(line).commands;
const splitCommandLine = readShellLine;

test("readShellLine - a single command is its name and arguments joined by single spaces", () => {
  expect(split("git status")).toEqual({ commands: ["git status"], substitution: false });
  expect(commandsOf("  git    log   --oneline  ")).toEqual(["git log --oneline"]);
  expect(commandsOf("echo a # a comment")).toEqual(["echo a"]);
});

test("readShellLine - an empty or blank line has no commands", () => {
  for (const line of ["", "   ", "\n\n", "\t", "# only a comment"])
    expect(split(line), JSON.stringify(line)).toEqual({ commands: [], substitution: false });
});

test("readShellLine - quotes are removed and escapes resolved", () => {
  const cases: Array<[string, string[]]> = [
    ["g\\it status", ["git status"]],
    ["'rm' -rf /", ["rm -rf /"]],
    ['"r"m -rf /', ["rm -rf /"]],
    ["bash -c 'rm -rf /'", ["bash -c rm -rf /", "rm -rf /"]],
    ["echo $'a\\nb'", ["echo a\nb"]],
    ["echo $'\\x41'", ["echo A"]],
    ['echo $"hello"', ["echo hello"]],
    ["r\\\nm -rf /", ["rm -rf /"]],
  ];
  for (const [line, expected] of cases) expect(commandsOf(line), JSON.stringify(line)).toEqual(expected);
});

test("readShellLine - variables, globs, braces and tildes are kept as written, not expanded", () => {
  expect(commandsOf("echo $HOME ${USER} *.txt {a,b} ~/x")).toEqual(["echo $HOME ${USER} *.txt {a,b} ~/x"]);
});

test("readShellLine - assignments before a command and redirections are left out", () => {
  expect(commandsOf("FOO=1 BAR='a b' make build > out.log 2>&1 < in.txt")).toEqual(["make build"]);
  expect(commandsOf("cat <<< hello")).toEqual(["cat"]);
});

test("readShellLine - the arguments of declaration commands are kept as name=value", () => {
  expect(commandsOf("export PATH=/evil:$PATH")).toEqual(["export PATH=/evil:$PATH"]);
  expect(commandsOf("local a+=x b[1]='y z'")).toEqual(["local a+=x b[1]=y z"]);
  expect(commandsOf("declare -a list=(1 'two')")).toEqual(["declare -a list=(1 two)"]);
  expect(commandsOf("env FOO=1 rm x")).toEqual(["env FOO=1 rm x", "rm x"]);
});

test("readShellLine - an assignment alone is no command, but its substitutions are", () => {
  expect(split("x=1")).toEqual({ commands: [], substitution: false });
  expect(split("x=$(rm -rf /)")).toEqual({ commands: ["rm -rf /"], substitution: true });
  expect(split("arr=( $(rm a) )")).toEqual({ commands: ["rm a"], substitution: true });
});

test("readShellLine - command smuggling: every command of the line is found", () => {
  const cases: Array<[string, string[]]> = [
    ["git status; rm -rf /", ["git status", "rm -rf /"]],
    ["$(rm -rf /)", ["$(rm -rf /)", "rm -rf /"]],
    ["git status\nrm -rf /", ["git status", "rm -rf /"]],
    ["curl x | sh", ["curl x", "sh"]],
    ["curl x |& sh", ["curl x", "sh"]],
    ["echo `rm -rf /`", ["echo `rm -rf /`", "rm -rf /"]],
    ["cat <(rm -rf /)", ["cat <(rm -rf /)", "rm -rf /"]],
    ["tee >(rm -rf /)", ["tee >(rm -rf /)", "rm -rf /"]],
    ["git status && rm -rf /", ["git status", "rm -rf /"]],
    ["git status || rm -rf /", ["git status", "rm -rf /"]],
    ["git status & rm -rf /", ["git status", "rm -rf /"]],
    ["if true; then rm -rf /; fi", ["true", "rm -rf /"]],
    ["if false; then :; elif rm a; then rm b; else rm c; fi", ["false", ":", "rm a", "rm b", "rm c"]],
    ["(rm -rf /)", ["rm -rf /"]],
    ["{ rm -rf /; }", ["rm -rf /"]],
    ["while rm a; do rm b; done", ["rm a", "rm b"]],
    ["until rm a; do rm b; done", ["rm a", "rm b"]],
    ["for f in $(rm a); do rm b; done", ["rm a", "rm b"]],
    ["for ((i=$(rm a); i<1; i++)); do rm b; done", ["((", "rm a", "rm b"]],
    ["case $(rm a) in x) rm b;; esac", ["rm a", "rm b"]],
    ["f() { rm -rf /; }; f", ["rm -rf /", "f"]],
    ["function f { rm -rf /; }", ["rm -rf /"]],
    ["coproc rm -rf /", ["rm -rf /"]],
    ["time rm -rf /", ["rm -rf /"]],
    ["/usr/bin/time -f %e rm -rf /", ["time -f %e rm -rf /", "rm -rf /"]],
    ["! rm -rf /", ["rm -rf /"]],
    ["[[ $(rm a) == x ]]", ["rm a"]],
    ["(( $(rm a) ))", ["((", "rm a"]],
    ["$'\\x72\\x6d' -rf /", ["rm -rf /"]],
    ["x=1 y=$(rm a) ls", ["ls", "rm a"]],
  ];
  for (const [line, expected] of cases) expect(commandsOf(line), JSON.stringify(line)).toEqual(expected);
});

test("readShellLine - commands inside words are found wherever a substitution runs", () => {
  const cases: Array<[string, string]> = [
    ['echo "$(rm a)"', "rm a"],
    ['echo "`rm a`"', "rm a"],
    ["echo ${x:-$(rm a)}", "rm a"],
    ['echo "${x:-"$(rm a)"}"', "rm a"],
    ["echo ${x[$(rm a)]}", "rm a"],
    ["echo ${x:$(rm a):1}", "rm a"],
    ["echo ${x/$(rm a)/b}", "rm a"],
    ["echo $(( $(rm a) + 1 ))", "rm a"],
    ["echo $(( y[$(rm a)] ))", "rm a"],
    ["echo $[$(rm a)]", "rm a"],
    ["echo > $(rm a)", "rm a"],
    ["cat <<< $(rm a)", "rm a"],
    ["exec 3> >(rm a)", "rm a"],
    ["cat <<EOF\n$(rm a)\nEOF\n", "rm a"],
    ["cat <<-EOF\n\t`rm a`\n\tEOF\n", "rm a"],
    ["echo $(echo $(echo $(rm a)))", "rm a"],
    ["echo `echo \\`rm a\\``", "rm a"],
    ["echo ${ rm a; }", "rm a"],
    ["export x=$(rm a)", "rm a"],
    ["echo @($(rm a))", "rm a"],
  ];
  for (const [line, hidden] of cases) {
    const result = split(line);
    expect(result.commands, JSON.stringify(line)).toContain(hidden);
    expect(result.substitution, JSON.stringify(line)).toBe(true);
  }
});

test("readShellLine - the verified mixed example", () => {
  const result = split("git status; rm -rf / && echo $(curl x | sh) `id` <(cat a)");
  expect(result.substitution).toBe(true);
  expect(result.commands).toEqual([
    "git status",
    "rm -rf /",
    "echo $(curl x | sh) `id` <(cat a)",
    "curl x",
    "sh",
    "id",
    "cat a",
  ]);
});

test("readShellLine - substitution is false when only variables, arithmetic or quoted look-alikes appear", () => {
  for (const line of ["echo $HOME", "echo $((1 + 2))", "echo '$(rm a)'", "echo \\$x \\`rm\\`", "cat <<'EOF'\n$(rm a)\nEOF\n"])
    expect(split(line).substitution, JSON.stringify(line)).toBe(false);
});

test("readShellLine - a quoted here-document body is data, not commands", () => {
  expect(commandsOf("cat <<'EOF'\n$(rm a)\nEOF\n")).toEqual(["cat"]);
  expect(commandsOf("cat <<EOF | sh\nrm -rf /\nEOF\n")).toEqual(["cat", "sh"]);
});

test("readShellLine - a here-document left open runs to the end of the line, as in bash", () => {
  expect(split("cat <<EOF\n$(rm a)")).toEqual({ commands: ["cat", "rm a"], substitution: true });
});

test("readShellLine - a fork bomb is a function definition and its calls", () => {
  expect(split(":(){ :|:& };:")).toEqual({ commands: [":", ":", ":"], substitution: false });
});

test("readShellLine - a line the parser reports errors for is refused with its message", () => {
  const cases: Array<[string, string]> = [
    ["echo 'x", "unterminated single quote"],
    ['echo "x', "unterminated double quote"],
    ["echo $(", "unterminated command substitution"],
    ["cat <(", "unterminated process substitution"],
    ["echo ${x", "unterminated parameter expansion"],
    ["echo $((1+", "unterminated arithmetic expansion"],
    ["echo )", "unexpected token ')'"],
    [";", "unexpected token ';'"],
    ["&& rm a", "unexpected token '&&'"],
    ["if true", "expected 'then'"],
    ["case x in", "expected 'esac' to close 'case'"],
    ["[[ -f ]]", "expected operand after unary test operator"],
  ];
  for (const [line, message] of cases) {
    const result = splitCommandLine(line);
    expect(result, JSON.stringify(line)).toEqual({ code: "unreadable_command", problem: expect.stringContaining(`"${message}"`) });
  }
});

test("readShellLine - an error only a nested script reports is still refused", () => {
  for (const line of ["echo `echo 'x`", "cat <<EOF\n$(echo 'x)\nEOF\n", "echo $(echo 'x)"])
    expect(splitCommandLine(line), JSON.stringify(line)).toEqual({
      code: "unreadable_command",
      problem: expect.stringContaining('"unterminated single quote"'),
    });
});

test("readShellLine - substitutions nested beyond 16 levels are refused, not skipped", () => {
  for (const depth of [17, 300]) {
    const line = `echo ${"$(".repeat(depth)}rm a${")".repeat(depth)}`;
    expect(splitCommandLine(line), `${depth}`).toEqual({ code: "command_too_complex", problem: expect.stringContaining("nests deeper than 16 levels") });
  }
  expect(split(`echo ${"$(".repeat(16)}rm a${")".repeat(16)}`).commands).toContain("rm a");
});

test("readShellLine - a refusal is a sentence a person can act on", () => {
  const result = splitCommandLine("echo 'x");
  expect(result).toEqual({
    code: "unreadable_command",
    problem:
      'The shell command line cannot be read: the parser reports "unterminated single quote". ' +
      "Close every quote, bracket and substitution, or send a simpler command.",
  });
});

/** Programs that run another command or code of their own: a line of them holds more commands than it names. */
const WRAPPING = new Set(["env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout", "sudo", "xargs", "watch", "eval", "sh", "bash", "find", "git", "npx"]);
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc"]);
const safeWord = fc.stringMatching(/^[a-z][a-z0-9._\/-]{0,11}$/).filter((word) => !RESERVED.has(word) && !word.endsWith("/") && !WRAPPING.has(word.replace(/^.*\//, "")));
const simpleCommand = fc.array(safeWord, { minLength: 1, maxLength: 5 }).map((words) => words.join(" "));
const operator = fc.constantFrom("; ", " && ", " || ", " | ", " |& ", " & ", "\n", ";\n", " &\n", " &&\n", " |\n");
const terminator = fc.constantFrom("", ";", " &", "\n");

test("readShellLine - property: simple commands joined by any operators come back exactly", () => {
  fc.assert(
    fc.property(simpleCommand, fc.array(fc.tuple(operator, simpleCommand), { maxLength: 8 }), terminator, (first, rest, end) => {
      const line = first + rest.map(([joiner, command]) => joiner + command).join("") + end;
      const named = (command: string) => command.replace(/^\S*\//, "");
      expect(split(line)).toEqual({ commands: [first, ...rest.map(([, command]) => command)].map(named), substitution: false });
    }),
  );
});
