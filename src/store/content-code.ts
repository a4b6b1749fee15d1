/** A content hash (`content_sha256`) as a fixed-width code: what the column readers compare per verdict. */

/**
 * A content hash as one number: its first 13 hex digits (52 bits, exact in a double; two different texts share a
 * code with probability 2^-52 per pair); -1 when the hash is absent or not hex.
 */
export function contentCode(sha: unknown): number {
  if (typeof sha !== "string" || !/^[0-9a-f]{13}/i.test(sha)) return -1;
  return parseInt(sha.slice(0, 13), 16);
}
