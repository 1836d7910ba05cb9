import { coreSourceConfig } from "../../vitest.shared.js";

export default coreSourceConfig();
