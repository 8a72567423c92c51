import { realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { dataDirRefusal, toolgateDataDirs } from "./data-dir";

const dataDirs = ["/home/me/toolgate/.toolgate", "/var/lib/toolgate-data"];

test.each([
  ["/home/me/toolgate/.toolgate", "holds"],
  ["/home/me/toolgate", "holds"],
  ["/home/me", "holds"],
  ["/", "holds"],
  ["/var/lib", "holds"],
  ["/home/me/toolgate/.toolgate/sub", "is inside"],
  ["/var/lib/toolgate-data/x/y", "is inside"],
])("dataDirRefusal - %s %s a data directory", (root, how) => {
  expect(dataDirRefusal(root, dataDirs)).toMatch(new RegExp(`^${root.replace(/[/.]/g, "\\$&")} ${how} toolgate's data directory`));
});

test.each([["/home/me/projects/app"], ["/home/me/toolgate/packages"], ["/home/me/toolgate/.toolgate-other"], ["/var/lib/toolgate-data2"]])(
  "dataDirRefusal - %s may be served",
  (root) => {
    expect(dataDirRefusal(root, dataDirs)).toBeUndefined();
  },
);

test("toolgateDataDirs - the one TOOLGATE_DATA_DIR names (from where toolgate runs) and the repository's own .toolgate", () => {
  const repository = realpathSync(fileURLToPath(new URL("../../../../", import.meta.url)));
  expect(toolgateDataDirs({ TOOLGATE_DATA_DIR: "data" }, "/srv/tg")).toEqual(["/srv/tg/data", join(repository, ".toolgate")]);
  expect(toolgateDataDirs({}, repository)).toEqual([join(repository, ".toolgate")]);
});
