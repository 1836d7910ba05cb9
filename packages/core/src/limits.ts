/**
 * `LIMITS`: the input limits a caller can hit, by the names the README uses. A value past one is
 * an `InvalidInputError` naming the field (or, for a search's words and query characters, the
 * rest is ignored): a caller, an importer or a driver's own tests can size input by them instead
 * of copying numbers. They are promises of the Store's API (changing one is a minor or major
 * change); the tuning constants beside them in constants.ts stay internal.
 */
import {
  MAX_CONTENT_CHARS,
  MAX_COST_USD,
  MAX_EPOCH_SECONDS,
  MAX_JSON_LEVELS,
  MAX_PATH_CHARS,
  MAX_SEARCH_FILTER_VALUES,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY_CHARS,
  MAX_SESSION_ID_CHARS,
  MAX_SOURCE_CHARS,
  MAX_WAIT_MS,
} from "./constants.js";
import { MAX_SEARCH_WORDS } from "./fts/constants.js";

export const LIMITS = Object.freeze({
  MAX_SESSION_ID_CHARS,
  MAX_CONTENT_CHARS,
  MAX_JSON_LEVELS,
  MAX_SEARCH_QUERY_CHARS,
  MAX_SEARCH_WORDS,
  MAX_SEARCH_LIMIT,
  MAX_SOURCE_CHARS,
  MAX_SEARCH_FILTER_VALUES,
  MAX_PATH_CHARS,
  MAX_WAIT_MS,
  MAX_EPOCH_SECONDS,
  MAX_COST_USD,
});
