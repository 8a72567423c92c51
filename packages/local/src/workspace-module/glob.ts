/**
 * A glob as a test of a slash-separated path: `*` and `?` within one segment, `**` across segments (`**\/` also
 * matches no directory at all), `[abc]`, `[!abc]`, `{a,b}`. A pattern without a slash is matched against the last
 * segment, the entry's name, as `find -name` and .gitignore do, so `*.ts` finds TypeScript files at any depth.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  const expression = new RegExp(`^${translate(pattern)}$`, "u");
  const byName = !pattern.includes("/");
  return (path) => expression.test(byName ? path.slice(path.lastIndexOf("/") + 1) : path);
}

const SPECIAL = new Set([..."\\^$.|+()[]{}*?/"]);
const escaped = (character: string) => (SPECIAL.has(character) ? `\\${character}` : character);

function translate(pattern: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const character = pattern[i]!;
    if (character === "*" && pattern[i + 1] === "*") {
      const atSegmentStart = i === 0 || pattern[i - 1] === "/";
      if (atSegmentStart && pattern[i + 2] === "/") {
        out += "(?:[^/]*/)*";
        i += 2;
      } else if (atSegmentStart && i + 2 === pattern.length) {
        out += ".*";
        i += 1;
      } else {
        out += "[^/]*";
        i += 1;
      }
    } else if (character === "*") out += "[^/]*";
    else if (character === "?") out += "[^/]";
    else if (character === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end === -1) out += "\\[";
      else {
        const body = pattern.slice(i + 1, end);
        const negated = body.startsWith("!") || body.startsWith("^");
        const members = [...(negated ? body.slice(1) : body)].map((member) => (member === "\\" || member === "]" || member === "[" ? `\\${member}` : member)).join("");
        out += negated ? `[^/${members}]` : `[${members}]`;
        i = end;
      }
    } else if (character === "{") {
      braces++;
      out += "(?:";
    } else if (character === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (character === "," && braces > 0) out += "|";
    else out += escaped(character);
  }
  return out + ")".repeat(braces);
}
