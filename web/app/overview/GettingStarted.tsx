// The first steps for a new organisation, each marked done from what the org already has: a
// default template, people beyond the first admin, a way for signatures to reach mail.
import { Link } from 'react-router';

export interface GettingStartedFacts {
  hasDefaultTemplate: boolean;
  seatsUsed: number;
}

export function GettingStarted({ facts }: { facts: GettingStartedFacts }) {
  const steps = [
    {
      done: facts.hasDefaultTemplate,
      title: 'Design your signature',
      body: (
        <>
          Pick a starter in <Link to="/templates">Templates</Link>, change its blocks and colours, and set it as the default.
        </>
      ),
    },
    {
      done: facts.seatsUsed > 1,
      title: 'Add your people',
      body: (
        <>
          Invite them one by one or import a CSV on <Link to="/users">Users</Link>, or sync them from Google Workspace or Microsoft 365.
        </>
      ),
    },
    {
      done: false,
      title: 'Put the signature on every message',
      body: (
        <>
          Push it to Gmail on <Link to="/integrations">Integrations</Link>, deploy the Outlook add-in on <Link to="/microsoft-365">Microsoft 365</Link>, or let
          everyone copy theirs from <Link to="/signature">My signature</Link>.
        </>
      ),
    },
  ];
  if (steps.slice(0, 2).every((s) => s.done)) return null;
  return (
    <section className="card getting-started" aria-labelledby="getting-started-heading">
      <h2 id="getting-started-heading">Getting started</h2>
      <ol>
        {steps.map((s) => (
          <li key={s.title} className={s.done ? 'done' : undefined}>
            <strong>
              {s.title}
              {s.done ? <span className="pill pill-success">Done</span> : null}
            </strong>
            <p>{s.body}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
