// The SST component of a module on Lambda, for an app's sst.config.ts (import it inside run(), as SST asks of every
// import there). It uses SST's globals (sst, aws, $util), so it is checked with the infra (tsconfig.infra.json).
import { registrationInput } from "../registration.js";
import { REPLAY_TABLE, REPLAY_TABLE_ENV } from "../replay-table.js";

export interface ToolgateModuleArgs extends Omit<sst.aws.FunctionArgs, "url"> {
  /** The toolgate the module registers with on deploy and leaves on removal. */
  toolgate: {
    /** Where toolgate is: its API's URL. The function gets it as TOOLGATE_URL, to fetch the keys calls are signed with. */
    url: $util.Input<string>;
    /** An admin token of that toolgate. It is sent only in the registration event, never set on the function. */
    adminToken: sst.Secret | $util.Input<string>;
  };
  /**
   * A DynamoDB table where every container of the function records the call tokens it accepted, so that a token
   * replayed to another container is refused too: created with the module, linked to the function, and named in
   * TOOLGATE_REPLAY_TABLE, where `dynamoReplayStore()` finds it. Without it each container remembers only its own.
   */
  replayTable?: boolean;
}

/**
 * A toolgate module as a Lambda function: `handler` is a file exporting `lambdaHandler(module)` from
 * `@toolgate/module/lambda`, bundled minified and split unless `nodejs` says otherwise. The function gets a public function URL (toolgate calls it there and signs each call for
 * it, so no IAM auth), and is registered with toolgate when it is deployed, registered again when its code or
 * toolgate's address changes, and withdrawn when it is removed: an `aws.lambda.Invocation` with `lifecycleScope: "CRUD"`
 * invokes the function itself with its URL, and the handler announces or withdraws the module.
 */
export class ToolgateModule extends $util.ComponentResource {
  private readonly fn: sst.aws.Function;
  private readonly registration: aws.lambda.Invocation;
  private readonly replays: sst.aws.Dynamo | undefined;

  constructor(name: string, args: ToolgateModuleArgs, opts?: $util.ComponentResourceOptions) {
    super("toolgate:module:ToolgateModule", name, {}, opts);
    const { toolgate, replayTable, ...functionArgs } = args;

    const replays = replayTable
      ? new sst.aws.Dynamo(`${name}Replays`, { fields: { [REPLAY_TABLE.hashKey]: "string" }, primaryIndex: { hashKey: REPLAY_TABLE.hashKey }, ttl: REPLAY_TABLE.ttl }, { parent: this })
      : undefined;
    const environment = $util.all([args.environment ?? {}, toolgate.url, replays?.name]).apply(([environment, url, replayTableName]) => ({
      ...environment,
      TOOLGATE_URL: url,
      ...(replayTableName ? { [REPLAY_TABLE_ENV]: replayTableName } : {}),
    }));
    const link = replays ? $util.all([functionArgs.link ?? []]).apply(([linked]) => [...linked, replays]) : functionArgs.link;
    // Split, so what a module loads on use (its MCP server, the bus client) is a chunk of its own, not its cold start.
    const nodejs = { minify: true, splitting: true, ...functionArgs.nodejs };
    const fn = new sst.aws.Function(`${name}Function`, { ...functionArgs, link, nodejs, environment, url: { authorization: "none", cors: false } }, { parent: this });

    const adminToken = $util.secret(toolgate.adminToken instanceof sst.Secret ? toolgate.adminToken.value : toolgate.adminToken);
    // The code's S3 key holds the hash of its bundle: new code is an update of the invocation, so it registers again.
    const code = fn.nodes.function.apply((lambda) => lambda.s3Key);
    const input = $util.all([fn.url, toolgate.url, adminToken, code]).apply(([url, toolgateUrl, adminToken, code]) =>
      JSON.stringify(registrationInput({ url, toolgateUrl, adminToken, ...(code ? { code } : {}) })),
    );
    // Replaced (the function renamed): the old registration is withdrawn before the new one is made, never after it.
    const registration = new aws.lambda.Invocation(
      `${name}Registration`,
      { functionName: fn.name, input, lifecycleScope: "CRUD" },
      { parent: this, deleteBeforeReplace: true },
    );

    this.fn = fn;
    this.registration = registration;
    this.replays = replays;
    this.registerOutputs({ url: fn.url });
  }

  /** The module's function URL: its executor URL in toolgate. */
  public get url() {
    return this.fn.url;
  }

  /** The underlying resources: the function, the invocation that registers it, and the replay table if it has one. */
  public get nodes() {
    return { function: this.fn, registration: this.registration, replayTable: this.replays };
  }
}
