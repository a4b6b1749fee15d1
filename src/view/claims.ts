/**
 * Blind mode's claims on annotator names (`annotations/.claims.json`: annotator file name -> sha256 of the secret of
 * the browser using it). The browser keeps its secret in localStorage (per origin, so per port: ./blind-port.ts)
 * and sends it as a header (./server.ts); it was a cookie, which every server on 127.0.0.1 received (red team 35b F1).
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { annotatorFileName } from "./annotator-file.js";
import { withFileLock, writeAtomic } from "./file-lock.js";
import { nfcName } from "../agree/annotator-names.js";

/** The blind view's record of which browser uses which annotator name (sha256 of a browser secret per file name). */
export const CLAIMS_FILE = ".claims.json";

/** What a claim needs of the sample (./annotations.ts `SampleStore`). */
export interface ClaimStore {
  readonly dir: string;
  filesOf(annotator: string): string[];
  /** Throws AnnotationInputError for a new name that looks like an existing annotator's (./annotations.ts). */
  checkNewName(annotator: string): void;
}

/**
 * Whether the browser holding `secret` may act as `annotator` (NFC). The first browser to use a name claims it (the
 * sha256 of its secret is kept in `annotations/.claims.json`); another browser is refused. A name with labels on
 * disk (in any file of `annotations/`, by the rows' `annotator` field) but no claim (written before claims were
 * kept, or by the full view) is refused too: its labels would be shown to whoever typed it first. A new name that
 * looks like an existing annotator's (case, invisible characters, NFKC) is refused (red team 35b F3).
 * @returns `{secret}` to keep in the browser (a new one when it had none), or `{refused}` with the reason.
 * @throws AnnotationInputError for a bad name; AnnotationWriteError when the claim cannot be written.
 */
export async function claimName(store: ClaimStore, annotator: string, secret: string | undefined): Promise<{ secret: string } | { refused: string }> {
  const name = typeof annotator === "string" ? nfcName(annotator) : "";
  const fname = annotatorFileName(name);
  const file = path.join(store.dir, "annotations", CLAIMS_FILE);
  const hash = (s: string) => createHash("sha256").update(s).digest("hex");
  const mine = secret ?? randomBytes(24).toString("base64url");
  return withFileLock(file, () => {
    let claims: Record<string, string> = {};
    try {
      const v = JSON.parse(fs.readFileSync(file, "utf8"));
      if (v && typeof v === "object" && !Array.isArray(v)) claims = v;
    } catch {
      /* none yet */
    }
    const held = claims[fname];
    if (held !== undefined) return held === hash(mine) ? { secret: mine } : { refused: `annotator: the name ${JSON.stringify(name)} is in use from another browser; choose another name` };
    if (store.filesOf(name).length > 0) {
      return { refused: `annotator: the name ${JSON.stringify(name)} already has labels that no browser has claimed; choose another name, or ask whoever runs the view` };
    }
    store.checkNewName(name);
    claims[fname] = hash(mine);
    writeAtomic(file, JSON.stringify(claims, null, 1) + "\n");
    return { secret: mine };
  });
}
