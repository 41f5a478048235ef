/**
 * Shared setup of the inspector's browser tests (`test/inspector-*.browser.test.ts`): whether Debian's Chromium is
 * here to drive, with one warning when it is not.
 */
import { browserMissing } from './browser.js';

/** Why the inspector's browser tests are skipped here, or undefined when Chromium is installed. */
export const chromiumMissing = browserMissing();
if (chromiumMissing) console.warn(`inspector browser tests skipped: ${chromiumMissing}`);
