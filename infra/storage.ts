import { TABLE } from "../packages/core/src/dynamo/table";

export const table = new sst.aws.Dynamo("Table", {
  fields: TABLE.fields,
  primaryIndex: TABLE.primaryIndex,
  globalIndexes: TABLE.globalIndexes,
  ttl: TABLE.ttl,
  stream: TABLE.stream,
});
