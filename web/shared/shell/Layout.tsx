// The app shell: a skip link, the header (product, who is signed in, sign-out), the navigation the
// person's role may use, an optional banner, the page, and one live region for notices.
import { useEffect, useState, type ComponentType } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { atLeast, useApp, type Me } from '../app-context.tsx';
import { Button } from '../components/Button.tsx';
import { Notices } from './Notices.tsx';

export interface NavItem {
  to: string;
  label: string;
  /** The lowest role offered this page (default: everyone signed in). */
  min?: Parameters<typeof atLeast>[1];
  /** The heading it sits under; pages without one come first, unheaded. */
  group?: string;
}

/** Consecutive items of one group together, in order (a group none of whose pages the role may use is not shown). */
export function navGroups(items: NavItem[]): { group: string | undefined; items: NavItem[] }[] {
  const groups: { group: string | undefined; items: NavItem[] }[] = [];
  for (const item of items) {
    const last = groups.at(-1);
    if (last && last.group === item.group) last.items.push(item);
    else groups.push({ group: item.group, items: [item] });
  }
  return groups;
}

export interface ShellOptions {
  product: string;
  nav: NavItem[];
  Banner?: ComponentType;
}

export function visibleNav(nav: NavItem[], me: Me): NavItem[] {
  return nav.filter((item) => !item.min || atLeast(me, item.min));
}

export function Layout({ product, nav, Banner }: ShellOptions) {
  const { me, session } = useApp();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the menu closes when the route changes
  useEffect(() => setMenuOpen(false), [location.pathname]);
  const items = visibleNav(nav, me);
  return (
    <div className="shell">
      {/* Under the page's <base href> (the app's path), "#main" alone would load the app's root
          again: the link moves the focus itself. */}
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link by convention (WCAG 2.4.1); under <base href> it must move the focus itself */}
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">
          <span className="brand-mark" aria-hidden="true">
            ✎
          </span>
          <span className="brand-name">{product}</span>
        </span>
        <Button variant="ghost" className="menu-toggle" aria-expanded={menuOpen} aria-controls="primary-nav" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </Button>
        <div className="account">
          <span className="account-name">
            {me.name || me.email}
            <span className="role-badge">{me.role}</span>
          </span>
          <Button variant="ghost" onClick={() => session.signOut()}>
            Sign out
          </Button>
        </div>
      </header>
      <div className="frame">
        <nav id="primary-nav" className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
          {navGroups(items).map(({ group, items: links }, i) => {
            const headingId = group ? `nav-group-${i}` : undefined;
            return (
              <div key={group ?? `group-${i}`} className="nav-group">
                {group ? (
                  <div className="nav-heading" id={headingId}>
                    {group}
                  </div>
                ) : null}
                <ul aria-labelledby={headingId}>
                  {links.map((item) => (
                    <li key={item.to}>
                      <NavLink to={item.to} end={item.to === '/'}>
                        {item.label}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </nav>
        <main id="main" tabIndex={-1}>
          {Banner ? <Banner /> : null}
          <Outlet />
        </main>
      </div>
      <Notices />
    </div>
  );
}
