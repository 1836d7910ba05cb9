/** The AI SDK's UIMessage shape: the mapping to rows, and the way back. */
export { mapUIMessage, toolRowKey, uiMessageMapper } from "./map.js";
export { uiMessageOf } from "./restore.js";
export { AI_SDK_FORMAT, type UIMessageJson, type UIPartJson } from "./ui-message.js";
