// The type of app-script.js, which build.ts generates from client/*.ts before the service starts or is bundled.
/** The console's browser script, served at /console/app.js. */
export declare const CLIENT_SCRIPT: string;
