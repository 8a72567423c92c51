// The type of served.js, which build.ts generates from routes.ts and the apps before the service starts or is bundled.
import type { openApiDocument } from "./document";

/** GET /openapi.json: the OpenAPI 3.1 document of every route. */
export declare const SERVED_DOCUMENT: ReturnType<typeof openApiDocument>;
/** GET /docs: the same document as a page. */
export declare const SERVED_PAGE: string;
