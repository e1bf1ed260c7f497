// Headless Chromium for browser tests: Debian's package, installed on demand. Import from a test file,
// e.g. `import { chromiumForTests } from "../../../../../test/browser/index.js";`
export { CHROMIUM_TEST_ARGS, freshUserDataDir, type UserDataDir } from "./chromium-options.js";
export {
  type ChromiumResult,
  chromiumForTests,
  DEBIAN_CHROMIUM,
  type EnsureChromiumOptions,
  ensureChromium,
} from "./ensure-chromium.js";
