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
          {product}
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
          <ul>
            {items.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.to === '/'}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
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
