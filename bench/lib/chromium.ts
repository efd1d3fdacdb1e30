/**
 * Debian's Chromium through playwright-core, with the flags this machine kind needs. Shared by the
 * dashboard bench and the browser tests (the bench build includes bench/, not test/).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.COLONY_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails loudly (never skips) when Chromium is missing: `npm test` installs it in pretest. */
export function assertChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: run scripts/ensure-chromium.sh (npm test does it in pretest)`,
    );
}

export async function launchChromium(): Promise<Browser> {
  assertChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}
