/**
 * undici's `Agent` and `request()` imported by their files (`./chat-transport.ts`), not from the package's index: the
 * index sets undici's global dispatcher when loaded, which would move the platform `fetch` (the Batch API's calls)
 * onto this copy of undici. The types are the package's own.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}
declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  /** `Dispatcher.prototype.request`, called with the dispatcher as `this`. */
  export default function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
