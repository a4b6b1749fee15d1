import fs from "node:fs";

/**
 * Remove a file if it is there (a temp file a failed write left behind); anything else (a folder of that name, a
 * permission error) is left as it is and not thrown: the caller is already reporting the failure that matters.
 * @param file the path to remove.
 */
export function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    /* not ours to clear */
  }
}
