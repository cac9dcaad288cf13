// Scheduling a campaign (POST …/campaigns): its name and times, its audience (AudienceFields.tsx),
// its variants (VariantFields.tsx) and the UTM parameters added to every banner link.
import { useState, type FormEvent } from 'react';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { boundOf, maxLengthOf } from '../../shared/api/field-limits.ts';
import { useCampaignActions } from './api.ts';
import { AudienceFields, emptyAudience, toWhen, type AudienceForm } from './AudienceFields.tsx';
import { VariantFields, emptyVariant, type VariantForm } from './VariantFields.tsx';
import './campaigns.css';

/** `datetime-local` value for a moment (the browser's time zone). */
const localValue = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

const UTM = [
  ['source', 'UTM source', 'e.g. signature'],
  ['medium', 'UTM medium', 'e.g. email'],
  ['campaign', 'UTM campaign', 'e.g. spring-launch'],
] as const;
type Utm = Record<(typeof UTM)[number][0], string>;

export function ScheduleForm() {
  const actions = useCampaignActions();
  const [name, setName] = useState('');
  const [startsAt, setStartsAt] = useState(localValue(new Date()));
  // Left as it is, the start is now by the server's clock (the browser's may be off).
  const [startChosen, setStartChosen] = useState(false);
  const [endsAt, setEndsAt] = useState('');
  const [audience, setAudience] = useState<AudienceForm>(emptyAudience);
  const [variants, setVariants] = useState<VariantForm[]>(() => [emptyVariant()]);
  const [utm, setUtm] = useState<Utm>({ source: '', medium: '', campaign: '' });
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const anyUtm = Object.values(utm).some((v) => v.trim());

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      await actions.create(
        {
          name,
          startsAt: new Date(startsAt).toISOString(),
          endsAt: endsAt ? new Date(endsAt).toISOString() : null,
          audience: toWhen(audience),
          variants: variants.map((v) => ({ imageId: v.imageId, link: v.link, alt: v.alt, weight: Number(v.weight) })),
          utm: anyUtm ? utm : null,
        },
        { startNow: !startChosen },
      );
      setName('');
      setAudience(emptyAudience);
      setVariants([emptyVariant()]);
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label="Schedule a campaign">
      <h2>Schedule a campaign</h2>
      <div className="grid">
        <TextField label="Name" value={name} maxLength={maxLengthOf('createCampaign', 'name')} onChange={(e) => setName(e.target.value)} required />
        <TextField
          label="Starts"
          type="datetime-local"
          value={startsAt}
          onChange={(e) => {
            setStartsAt(e.target.value);
            setStartChosen(true);
          }}
          hint={startChosen ? undefined : 'Now, unless you change it'}
          required
        />
        <TextField label="Ends" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} hint="Leave empty to run until ended" />
      </div>
      <AudienceFields value={audience} onChange={setAudience} />
      <VariantFields value={variants} onChange={setVariants} />
      <fieldset className="campaign-group">
        <legend>Link tracking (UTM)</legend>
        <p className="field-hint">Added to every banner link. All three, or none.</p>
        <div className="grid">
          {UTM.map(([key, label, placeholder]) => (
            <TextField
              key={key}
              label={label}
              value={utm[key]}
              placeholder={placeholder}
              required={anyUtm}
              maxLength={boundOf('createCampaign', `utm.${key}`).maxLength}
              onChange={(e) => setUtm({ ...utm, [key]: e.target.value })}
            />
          ))}
        </div>
      </fieldset>
      <ErrorMessage error={error} />
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={pending}>
          Schedule
        </Button>
      </div>
    </form>
  );
}
