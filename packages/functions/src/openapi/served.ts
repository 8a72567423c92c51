import { executionApp } from "../api/execution";
import { groupsApp } from "../api/groups";
import { rolesApp } from "../api/roles";
import { openApiDocument } from "./document";
import { docsPage } from "./page";

const unused = () => {
  throw new Error("the apps are only read for their routes");
};

/** The document of the three functions' apps as they are deployed; built once per process, on the first request for it. */
export const servedDocument = openApiDocument({ groups: groupsApp(unused), roles: rolesApp(unused), execution: executionApp(unused) });
export const servedPage = docsPage(servedDocument);
