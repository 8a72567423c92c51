import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1";

/**
 * Seals the real arguments of a call that waits (for an approval, or for the runtime's result) so the stored
 * item holds no readable secret. The key is derived from the token-signing key; rotating it makes waiting calls unreadable.
 */
export class ArgumentSeal {
  private readonly key: Buffer;

  constructor(signingKey: string) {
    this.key = Buffer.from(hkdfSync("sha256", signingKey, "toolgate", "toolgate pending call arguments", 32));
  }

  seal(value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url")}`;
  }

  /** The sealed value, or undefined when it was sealed with another key or tampered with. */
  open(text: string): unknown {
    if (!text.startsWith(`${VERSION}.`)) return undefined;
    const bytes = Buffer.from(text.slice(VERSION.length + 1), "base64url");
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8"));
    } catch {
      return undefined;
    }
  }
}
