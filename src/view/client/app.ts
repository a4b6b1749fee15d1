/**
 * The page of `ipi-judge view` (bundled by esbuild into dist/view/assets/app.js): a hash router over the list
 * (`#/?filters`), one trajectory (`#/t/<id>`), annotation (`#/annotate/<n>`) and adjudication (`#/adjudicate`).
 * Data comes from the server's JSON API and goes into the DOM as text only (./dom.ts).
 */
import { clear, getJson, h, takeToken, TokenRefused, useClaimKey } from "./dom.js";
import { renderList } from "./list.js";
import { renderItem } from "./item.js";
import { detachKeys, renderAdjudicate, renderAnnotate } from "./annotate.js";
import type { Meta } from "./meta.js";

function nav(meta: Meta): HTMLElement {
  const links: HTMLElement[] = [];
  if (meta.mode === "full") links.push(h("a", { href: "#/" }, `run ${meta.run}`));
  if (meta.sample) links.push(h("a", { href: "#/annotate" }, "annotate"));
  if (meta.sample && meta.mode === "full") links.push(h("a", { href: "#/adjudicate" }, "adjudicate"));
  return h("nav", {}, h("b", {}, "ipi-judge view"), ...links);
}

async function route(meta: Meta, main: HTMLElement): Promise<void> {
  const hash = location.hash.replace(/^#/, "") || "/";
  detachKeys();
  try {
    if (hash.startsWith("/t/")) {
      if (meta.mode !== "full") throw new Error("this view is blind: only annotation");
      return await renderItem(main, meta, decodeURIComponent(hash.slice(3)));
    }
    if (hash.startsWith("/annotate")) {
      if (!meta.sample) throw new Error("no sample: start the view with --sample DIR");
      const n = Number(hash.split("/")[2] ?? "0");
      return await renderAnnotate(main, meta, Number.isInteger(n) ? n : 0);
    }
    if (hash.startsWith("/adjudicate")) {
      if (!meta.sample) throw new Error("no sample: start the view with --sample DIR");
      return await renderAdjudicate(main, meta);
    }
    if (meta.mode !== "full") {
      location.hash = "#/annotate";
      return;
    }
    renderList(main, meta);
  } catch (e) {
    clear(main);
    main.appendChild(h("p", { class: "err" }, (e as Error).message));
  }
}

async function start(): Promise<void> {
  const app = document.getElementById("app")!;
  // the token goes to sessionStorage and out of the address bar (links stay usable in this tab)
  if (!takeToken()) {
    clear(app);
    app.appendChild(h("p", { class: "err" }, "this page needs the server's token: open the URL the view printed (http://…/?token=…) in this tab"));
    return;
  }
  let meta: Meta;
  try {
    meta = await getJson<Meta>("/api/meta");
    useClaimKey(meta.sample?.claim_key ?? null);
  } catch (e) {
    clear(app);
    // a token refused is no unreachable server: the message says the view restarted and which URL to open
    app.appendChild(h("p", { class: "err" }, e instanceof TokenRefused ? e.message : `cannot reach the server: ${(e as Error).message}`));
    return;
  }
  clear(app);
  const main = h("main", { id: "main" });
  app.append(nav(meta));
  if (meta.warnings.length) app.appendChild(h("details", { class: "warnings" }, h("summary", {}, `${meta.warnings.length} warning(s)`), h("ul", {}, ...meta.warnings.map((w) => h("li", {}, w)))));
  app.appendChild(main);
  window.addEventListener("hashchange", () => void route(meta, main));
  await route(meta, main);
}

void start();
