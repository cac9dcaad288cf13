import type { ComponentType } from 'react';
import { Link } from 'react-router';
import { atLeast, useApp } from '../app-context.tsx';

/** A page offered from a role up: below it, an explanation instead of a page of refusals. */
export function requireRole(min: Parameters<typeof atLeast>[1], Page: ComponentType): ComponentType {
  return function Guarded() {
    const { me } = useApp();
    if (atLeast(me, min)) return <Page />;
    return (
      <section className="page">
        <h1>Not available to your role</h1>
        <p>
          This page is for the organisation’s {min === 'owner' ? 'owners' : 'admins and owners'}. <Link to="/">Go to the start page</Link>.
        </p>
      </section>
    );
  };
}
