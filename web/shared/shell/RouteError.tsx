import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { ErrorMessage } from '../components/Status.tsx';

/** What a page that failed to load or render shows, inside the shell. */
export function RouteError() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  return (
    <section className="page">
      <h1>This page could not be shown</h1>
      <ErrorMessage error={error} />
    </section>
  );
}

export function NotFound() {
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Go to the start page</Link>.
      </p>
    </section>
  );
}
