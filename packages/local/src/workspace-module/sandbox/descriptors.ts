import { closeSync, readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/**
 * Closes the descriptors this process inherited without close-on-exec (node opens its own with it), which every child
 * would inherit in turn: bwrap passes them into the sandbox, where a directory's descriptor would lead out of it.
 */
export function closeInheritedDescriptors(): void {
  for (const name of readdirSync("/proc/self/fd")) {
    const fd = Number(name);
    if (fd <= 2) continue;
    try {
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) closeSync(fd);
    } catch {
      // The descriptor of the directory just listed, closed since.
    }
  }
}
