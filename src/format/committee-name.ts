/** How every output names a committee (new user 30): its members and quorum, never a bare "committee". */

/**
 * `committee (claude, gpt, llama; quorum 2)`.
 * @param c its members (printed in the order given) and quorum; null: a stored committee file of an older version that
 *   does not record it (`quorum not recorded`, never a guessed number).
 */
export function committeeName(c: { members: readonly string[]; quorum: number | null }): string {
  return `committee (${c.members.join(", ") || "no judge"}; ${c.quorum === null ? "quorum not recorded" : `quorum ${c.quorum}`})`;
}
