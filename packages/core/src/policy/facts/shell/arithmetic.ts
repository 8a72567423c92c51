import { forEachChild } from "unbash";
import type { SyntaxNode } from "unbash";

const NESTED_SCRIPTS: ReadonlySet<SyntaxNode["type"]> = new Set(["CommandExpansion", "ProcessSubstitution"]);

/**
 * Whether bash evaluates what a variable holds as arithmetic somewhere in this node (outside nested substitutions,
 * which are commands of their own): `$((x))`, `$[x]`, `((x))`, `$(( $(cmd) ))` (the output is evaluated), `${a[i]}`,
 * `${s:off}`, or `${x@P}`. A value such as
 * `a[$(rm -rf ~)]` then runs its substitution, so nothing short of running the line says what it does.
 */
export function reevaluates(node: SyntaxNode, holdsNumber: (name: string) => boolean): boolean {
  let found = false;
  const look = (child: SyntaxNode): void => {
    if (found || NESTED_SCRIPTS.has(child.type)) return;
    if (child.type === "ArithmeticCommandExpansion") found = true;
    if (child.type === "ArithmeticWord" && !isNumber(child.value) && !holdsNumber(child.value)) found = true;
    else if (child.type === "ParameterExpansion") {
      const index = child.index?.value;
      const plain = (text: string) => isNumber(text) || holdsNumber(text.replace(/^\$\{?|\}$/g, ""));
      if (index !== undefined && index !== "@" && index !== "*" && !plain(index)) found = true;
      const operation = child.operation;
      if (operation?.type === "Slice" && (!plain(operation.offset.value) || (operation.length && !plain(operation.length.value)))) found = true;
      if (operation?.type === "Transform" && operation.operand.value === "P") found = true;
    }
    if (!found) forEachChild(child, look);
  };
  forEachChild(node, look);
  return found;
}

/** A number bash reads the same whatever the environment: decimal, hexadecimal or `base#digits`. */
export const isNumber = (text: string) => /^\s*[-+]?(0x[0-9a-f]+|[0-9]+(#[0-9a-z@_]+)?)\s*$/i.test(text);
