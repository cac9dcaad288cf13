// Staff overrides of an org (DECISIONS wave 3, "Staff overrides"): seats and plan whatever its
// payment events say, a trial extended to a date, its own monthly request quota. An empty field
// clears the override (null); each save is one staff audit entry.
import { useState, type FormEvent } from 'react';
import { Button } from '../../shared/components/Button.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import type { AdminOrg } from '../lib/types.ts';
import { useOverrideActions } from './api.ts';

const numberOrNull = (v: string) => (v.trim() === '' ? null : Number(v));
const dayOf = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

export function OverridesCard({ org }: { org: AdminOrg }) {
  const o = org.overrides;
  const actions = useOverrideActions(org.orgId);
  const [seats, setSeats] = useState(o.seatsOverride?.toString() ?? '');
  const [plan, setPlan] = useState(o.planOverride ?? '');
  const [trial, setTrial] = useState(dayOf(o.trialEndsAt));
  const [quota, setQuota] = useState(o.quotaPerMonth?.toString() ?? '');
  const save = useMutation(async () => {
    await actions.set({
      seatsOverride: numberOrNull(seats),
      planOverride: plan.trim() || null,
      // The end of the chosen day (UTC): the org stays writable through it.
      trialEndsAt: trial ? `${trial}T23:59:59.000Z` : null,
      quotaPerMonth: numberOrNull(quota),
    });
    notices.show({ kind: 'success', text: 'Overrides saved.' });
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <section className="card" aria-labelledby="overrides-h">
      <h2 id="overrides-h">Staff overrides</h2>
      <p className="muted">Empty means none: the payment events decide (and the stage’s default quota). Replaying events never erases an override.</p>
      <form onSubmit={submit} className="overrides-form">
        <TextField label="Seats" type="number" min={0} value={seats} onChange={(e) => setSeats(e.target.value)} hint={`Now ${org.seats} (effective).`} />
        <TextField label="Plan" value={plan} onChange={(e) => setPlan(e.target.value)} hint={`Now ${org.plan} (effective).`} />
        <TextField label="Trial ends (writable until)" type="date" value={trial} onChange={(e) => setTrial(e.target.value)} />
        <TextField
          label="Requests per month"
          type="number"
          min={0}
          value={quota}
          onChange={(e) => setQuota(e.target.value)}
          hint="0 turns the quota off for this org."
        />
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={save.pending}>
            {save.pending ? 'Saving…' : 'Save overrides'}
          </Button>
        </div>
      </form>
      <ErrorMessage error={save.error} />
    </section>
  );
}
