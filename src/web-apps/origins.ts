// Which browser origins may call the API: the web apps' own, when they are not BASE_URL's.
import type { Config } from '../config.ts';

export function allowedWebOrigins(config: Pick<Config, 'baseUrl' | 'appUrl' | 'adminUrl'>): string[] {
  const api = new URL(config.baseUrl).origin;
  return [...new Set([config.appUrl, config.adminUrl].map((u) => new URL(u).origin))].filter((o) => o !== api);
}
