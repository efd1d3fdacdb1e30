/** The browser tests' Chromium: one launcher shared with the dashboard bench (bench/lib/chromium.ts). */
export { assertChromium, CHROMIUM, CHROMIUM_FLAGS, launchChromium } from '../../bench/lib/chromium.js';
