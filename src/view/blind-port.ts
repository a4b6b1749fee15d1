/**
 * The default port of a blind view (`view --sample DIR --blind` without `--port`): a blind annotator's claim on a
 * name is a secret kept in the browser's localStorage, which is per origin (scheme, host, port): a blind view
 * restarted on another port finds none of the claims its annotators made (red team 35b F1: the secret used to be a
 * cookie, which every server on 127.0.0.1 received). So the port is derived from the sample folder and stays the
 * same across restarts.
 */
import { createHash } from "node:crypto";
import path from "node:path";

/** The range of the derived ports: unprivileged, below Linux's ephemeral range (32768-60999). */
export const BLIND_PORT_MIN = 20000;
export const BLIND_PORT_SPAN = 10000;

/** The stable default port of a blind view of the sample folder `dir` (its absolute path hashed into the range). */
export function blindPortOf(dir: string): number {
  const h = createHash("sha256").update(path.resolve(dir)).digest();
  return BLIND_PORT_MIN + (h.readUInt32BE(0) % BLIND_PORT_SPAN);
}

/** The warning of a blind view that could not take its derived port and listens on another. */
export function blindPortWarning(wanted: number, got: number, why: string): string {
  return (
    `the blind view's port for this sample folder, ${wanted}, is not free (${why}): listening on ${got} instead. ` +
    `Annotators' claims on their names are kept per port by their browsers: names claimed through port ${wanted} will ` +
    `not be found on this one (they are refused as "labels that no browser has claimed"). Free port ${wanted}, or give --port ${wanted} ` +
    `once it is free, to keep them`
  );
}
