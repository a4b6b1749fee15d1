/** How every output names a committee (new user 30): its members and quorum, never a bare "committee". */

/**
 * `committee (claude, gpt, llama; quorum 2)`.
 * @param c its members (printed in the order given) and quorum.
 */
export function committeeName(c: { members: readonly string[]; quorum: number }): string {
  return `committee (${c.members.join(", ") || "no judge"}; quorum ${c.quorum})`;
}
