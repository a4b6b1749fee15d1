/**
 * `label --where`: the input warnings of the trajectories the filter keeps, and one note counting those it leaves out
 * (fixM 3). The reader holds each trajectory's own warnings on its item (`ReadOptions.holdItemWarnings`); they are
 * aggregated here only for a trajectory `--where` keeps, so a folder the filter excludes (AgentDyn's `-drift` runs
 * under `--where model=gpt-5-mini-...`) is not warned about as bad input of this run: it is said once, as a count.
 */
import { WarningCollector, WHERE_LEFT_OUT, type IngestWarning, type ItemWarning } from "../ingest/index.js";

/** The held warnings of one `label --where` read, by whether the filter kept their trajectory. */
export class WhereWarnings {
  private readonly kept = new WarningCollector();
  /**
   * trajectories left out that raised a warning, and the distinct warnings they raised, keyed as the reader's
   * collector keys them (kind, folder or file, variant: each field and spelling of `name_normalized` is its own)
   */
  private items = 0;
  private readonly scopes = new Set<string>();

  /** Count one trajectory's held warnings: aggregated when `--where` kept it, else only counted. */
  item(warnings: readonly ItemWarning[] | undefined, kept: boolean): void {
    if (!warnings?.length) return;
    if (kept) for (const w of warnings) this.kept.add(w);
    else {
      this.items++;
      for (const w of warnings) this.scopes.add(`${w.kind}\u0000${w.scope}\u0000${w.variant ?? ""}`);
    }
  }

  /**
   * The warnings of the kept trajectories (aggregated as the reader does), then, when `--where` left out trajectories
   * that raised some, one note: how many trajectories and warnings, and that they concern nothing of this run.
   * @param where the filter's text (`model=m`), for the note.
   */
  drain(where: string): IngestWarning[] {
    const out = this.kept.drain();
    if (this.items > 0) {
      const n = this.scopes.size;
      out.push({
        kind: WHERE_LEFT_OUT,
        path: "",
        message:
          `--where ${where} left out ${this.items} trajector${this.items === 1 ? "y" : "ies"} whose input raised ${n} warning${n === 1 ? "" : "s"} (counted as the input warnings list them): ` +
          "not shown, as they concern nothing this run stores or judges",
        count: this.items,
      });
    }
    return out;
  }
}
