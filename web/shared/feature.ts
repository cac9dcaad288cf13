// A page of an app, declared by its own folder's `route.ts`: the apps collect them with Vite's
// import.meta.glob, so adding a page never edits a shared list. The page's module is loaded only
// when it is first visited (its own chunk).
import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import type { NavItem } from './shell/Layout.tsx';
import { requireRole } from './shell/require-role.tsx';

export interface FeatureRoute {
  /** Path under the app, without a leading slash ("users"); its sub-paths are the page's own. */
  path: string;
  /** Shown in the navigation; omit to keep the page out of it. */
  label?: string;
  /** Position in the navigation (lower first). */
  order: number;
  /** The navigation's heading the page sits under (pages of one group are next to each other in `order`). */
  group?: string;
  min?: NavItem['min'];
  page: () => Promise<{ default: ComponentType }>;
}

export function collect(modules: Record<string, { route: FeatureRoute }>): { routes: RouteObject[]; nav: NavItem[] } {
  const features = Object.values(modules)
    .map((m) => m.route)
    .sort((a, b) => a.order - b.order);
  return {
    routes: features.map((f) => ({
      path: `${f.path}/*`,
      lazy: async () => {
        const Page = (await f.page()).default;
        return { Component: f.min ? requireRole(f.min, Page) : Page };
      },
    })),
    nav: features
      .filter((f) => f.label)
      .map((f) => ({ to: `/${f.path}`, label: f.label as string, ...(f.min ? { min: f.min } : {}), ...(f.group ? { group: f.group } : {}) })),
  };
}
