/** @sessiondb/formats — work in progress (skeleton). */

// The AI SDK's UIMessage (ai-sdk/): used by @sessiondb/ai-sdk.
export {
  AI_SDK_FORMAT,
  mapUIMessage,
  toolRowKey,
  type UIMessageJson,
  type UIPartJson,
  uiMessageMapper,
  uiMessageOf,
} from "./ai-sdk/index.js";
export type { ItemMapper, LineFormat, MappedItem, SessionFacts } from "./mapped.js";
