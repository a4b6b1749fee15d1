/**
 * `path.resolve` of one path, without its normalizing pass when the path is already what it would give (issue 26:
 * the reader resolved each run file's path several times, ~5% of its own work at 20,000 files).
 */
import path from "node:path";

/**
 * Exactly `path.resolve(p)`. On POSIX an absolute path with no empty, `.` or `..` segment and no trailing `/` is
 * its own resolution and is returned as it is; any other path (relative, unclean, or on Windows) goes through
 * `path.resolve`.
 */
export function resolvedPath(p: string): string {
  if (path.sep === "/" && p.length > 1 && p.charCodeAt(0) === 0x2f && clean(p)) return p;
  return path.resolve(p);
}

/** No `//`, `/./` or `/../` in `p`, and `p` does not end in `/`, `/.` or `/..`. */
function clean(p: string): boolean {
  if (p.includes("//") || p.includes("/./") || p.includes("/../")) return false;
  return !(p.endsWith("/") || p.endsWith("/.") || p.endsWith("/.."));
}

/**
 * The last `n` non-empty segments of `p` split at `path.sep`, in order (as `p.split(path.sep).filter((s) => s !==
 * "").slice(-n)`, without splitting the whole path); undefined when it has fewer than `n`.
 */
export function lastSegments(p: string, n: number): string[] | undefined {
  const out: string[] = [];
  let end = p.length;
  while (out.length < n && end > 0) {
    const i = p.lastIndexOf(path.sep, end - 1);
    if (i + 1 < end) out.push(p.slice(i + 1, end));
    end = i;
  }
  return out.length < n ? undefined : out.reverse();
}
