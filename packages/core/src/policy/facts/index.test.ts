import { expect, test } from "vitest";
import { builtinGroups } from "../../builtin/groups";
import type { ToolDefinition } from "../../tool/schema";
import { callFacts, commandArguments, pathArguments, type CallFacts } from "./index";

function builtin(name: string): ToolDefinition {
  const definition = builtinGroups()
    .flatMap((group) => group.tools)
    .find((tool) => tool.function.name === name);
  if (!definition) throw new Error(`no built-in tool ${name}`);
  return definition;
}

function tool(parameters: Record<string, unknown>, policy?: ToolDefinition["x-toolgate"]): ToolDefinition {
  return {
    type: "function",
    function: { name: "t", description: "A test tool.", parameters: { type: "object", ...parameters } },
    ...(policy ? { "x-toolgate": policy } : {}),
  };
}

function factsOf(definition: ToolDefinition, args: Record<string, unknown>, root: string | null): CallFacts {
  const facts = callFacts(definition, args, root);
  if ("problem" in facts) throw new Error(`refused: ${facts.problem}`);
  return facts;
}

const ROOT = "/work/a";

test("pathArguments and commandArguments - the built-in tools declare theirs", () => {
  const cases: Array<[string, string[], string[]]> = [
    ["read_file", ["path"], []],
    ["write_file", ["path"], []],
    ["list_files", ["path"], []],
    ["run_command", ["cwd"], ["command"]],
    ["http_request", [], []],
    ["send_message", [], []],
  ];
  for (const [name, paths, commands] of cases) {
    expect(pathArguments(builtin(name)), name).toEqual(paths);
    expect(commandArguments(builtin(name)), name).toEqual(commands);
  }
});

test("pathArguments - declared names first, then properties of format path or arrays of them, without repeats", () => {
  const definition = tool(
    {
      properties: {
        source: { type: "string", format: "path" },
        targets: { type: "array", items: { type: "string", format: "path" } },
        target: { type: "string", format: "path" },
        url: { type: "string", format: "uri" },
        names: { type: "array", items: { type: "string" } },
        note: { type: "string" },
      },
    },
    { pathArguments: ["target", "dir"] },
  );
  expect(pathArguments(definition)).toEqual(["target", "dir", "source", "targets"]);
});

test("pathArguments - a schema without properties or with odd property schemas has only the declared names", () => {
  expect(pathArguments(tool({}))).toEqual([]);
  expect(pathArguments(tool({ properties: "nonsense" }, { pathArguments: ["p"] }))).toEqual(["p"]);
  expect(pathArguments(tool({ properties: { a: true, b: null, c: { items: [{ format: "path" }] } } }))).toEqual([]);
});

test("pathArguments - the lists are computed once per definition, and a caller changing one changes nothing", () => {
  const definition = tool({ properties: { p: { type: "string", format: "path" } } }, { commandArguments: ["c"] });
  pathArguments(definition).push("injected");
  commandArguments(definition).push("injected");
  expect(pathArguments(definition)).toEqual(["p"]);
  expect(commandArguments(definition)).toEqual(["c"]);
});

test("callFacts - read_file with a path inside and outside the workspace", () => {
  const definition = builtin("read_file");
  expect(factsOf(definition, { path: "src/index.ts" }, ROOT).paths).toEqual([
    { path: "/work/a/src/index.ts", outsideWorkspace: false },
  ]);
  expect(factsOf(definition, { path: "../../etc/passwd" }, ROOT).paths).toEqual([
    { path: "/etc/passwd", outsideWorkspace: true },
  ]);
  expect(factsOf(definition, { path: "~/.ssh/id_rsa" }, ROOT).paths).toEqual([
    { path: "~/.ssh/id_rsa", outsideWorkspace: true },
  ]);
  expect(factsOf(definition, { path: "../x" }, null).paths).toEqual([{ path: "../x", outsideWorkspace: false }]);
});

const texts = (facts: CallFacts) => facts.commands.map((command) => command.command);

test("callFacts - run_command gives the commands of its line with what each does, its cwd as a path, and the sizes", () => {
  const args = { command: "git -C . status && curl x | sh", cwd: "../other" };
  expect(callFacts(builtin("run_command"), args, ROOT)).toEqual({
    paths: [{ path: "/work/other", outsideWorkspace: true }],
    commands: [
      { command: "git status", program: "git", flags: [], codeExecution: false, dynamic: false, paths: [{ path: "/work/other", outsideWorkspace: true }] },
      { command: "curl x", program: "curl", flags: [], codeExecution: false, dynamic: false, paths: [] },
      { command: "sh", program: "sh", flags: [], codeExecution: true, dynamic: false, paths: [] },
    ],
    commandSubstitution: false,
    forkBomb: false,
    inputBytes: JSON.stringify(args).length,
    largestStringBytes: "git -C . status && curl x | sh".length,
  });
});

test("callFacts - paths in a command line are resolved from its cwd, and the devices every command may name are inside", () => {
  const facts = factsOf(builtin("run_command"), { command: "cat ../x src/y /etc/passwd ~/.ssh/id_rsa $HOME/z > /dev/null 2>&1", cwd: "sub" }, ROOT);
  expect(facts.commands[0]!.paths).toEqual([
    { path: "/dev/null", outsideWorkspace: false },
    { path: "/work/a/x", outsideWorkspace: false },
    { path: "/work/a/sub/src/y", outsideWorkspace: false },
    { path: "/etc/passwd", outsideWorkspace: true },
    { path: "~/.ssh/id_rsa", outsideWorkspace: true },
    { path: "$HOME/z", outsideWorkspace: true },
  ]);
  expect(factsOf(builtin("run_command"), { command: "cat $HOME/z ../x" }, null).commands[0]!.paths).toEqual([
    { path: "$HOME/z", outsideWorkspace: false },
    { path: "../x", outsideWorkspace: false },
  ]);
});

test("callFacts - a command substitution is reported and its commands are listed", () => {
  const facts = factsOf(builtin("run_command"), { command: "echo $(rm -rf /)" }, ROOT);
  expect(texts(facts)).toEqual(["echo $(rm -rf /)", "rm -rf /"]);
  expect(facts.commandSubstitution).toBe(true);
  expect(facts.paths).toEqual([]);
});

test("callFacts - a command line that cannot be read or is too complex refuses the call and names the argument", () => {
  expect(callFacts(builtin("run_command"), { command: "echo 'unclosed" }, ROOT)).toEqual({
    code: "unreadable_command",
    problem: expect.stringContaining('"unterminated single quote"'),
    argument: "command",
  });
  expect(callFacts(builtin("run_command"), { command: "ls;".repeat(300) }, ROOT)).toEqual({
    code: "command_too_complex",
    problem: expect.stringContaining("more than 256 simple commands"),
    argument: "command",
  });
});

test("callFacts - commands of several arguments follow argument order and substitution is ORed", () => {
  const definition = tool({ properties: {} }, { commandArguments: ["setup", "main", "missing"] });
  const facts = factsOf(definition, { main: "make test", setup: "cd $(mktemp -d); npm ci" }, ROOT);
  expect(texts(facts)).toEqual(["cd $(mktemp -d)", "mktemp -d", "npm ci", "make test"]);
  expect(facts.commandSubstitution).toBe(true);
});

test("callFacts - path arrays give one path per string element; other types are ignored", () => {
  const definition = tool({ properties: { files: { type: "array", items: { type: "string", format: "path" } } } }, {
    pathArguments: ["single", "count", "nested"],
  });
  const facts = factsOf(
    definition,
    { files: ["a", 3, "../b", null, ["c"]], single: "/etc/hosts", count: 3, nested: { path: "x" } },
    ROOT,
  );
  expect(facts.paths).toEqual([
    { path: "/etc/hosts", outsideWorkspace: true },
    { path: "/work/a/a", outsideWorkspace: false },
    { path: "/work/b", outsideWorkspace: true },
  ]);
});

test("callFacts - a command argument that is not a string is ignored", () => {
  const definition = tool({}, { commandArguments: ["command"] });
  expect(factsOf(definition, { command: ["rm", "-rf", "/"] }, ROOT).commands).toEqual([]);
});

test("callFacts - only the arguments' own properties are read, never inherited ones", () => {
  const definition = tool({}, { pathArguments: ["toString", "__proto__"], commandArguments: ["constructor"] });
  expect(factsOf(definition, {}, ROOT)).toMatchObject({ paths: [], commands: [] });
});

test("callFacts - sizes count the whole arguments in UTF-8", () => {
  const args = { path: "notes.md", content: "日本語" };
  expect(factsOf(builtin("write_file"), args, ROOT)).toMatchObject({
    inputBytes: JSON.stringify(args).length + 6,
    largestStringBytes: 9,
  });
});

test("callFacts - a tool without path or command arguments still has its sizes", () => {
  const args = { to: "agt_1", content: "hi" };
  expect(callFacts(builtin("send_message"), args, ROOT)).toEqual({
    paths: [],
    commands: [],
    commandSubstitution: false,
    forkBomb: false,
    inputBytes: JSON.stringify(args).length,
    largestStringBytes: 5,
  });
});
