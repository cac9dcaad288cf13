// The selected block's settings, and the design's style (layout, font, size, colours). Each
// control changes the design at once; the preview follows after a pause.
import { useId, type ReactNode } from 'react';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { designBound } from '../../shared/api/field-limits.ts';
import { BLOCK_LABELS, CONTACT_FIELDS, FONTS, IDENTITY_FIELDS, LAYOUTS, NETWORKS, type Block, type Design, type DesignStyle } from './design-model.ts';
import type { CustomField } from './api.ts';

interface Img {
  imageId: string;
  url: string;
  width: number;
  height: number;
}

/** Checkboxes for an ordered subset (at least one stays ticked: the service refuses an empty list). */
function Choices<T extends string>({
  legend,
  options,
  value,
  onChange,
}: {
  legend: string;
  options: readonly (readonly [T, string])[];
  value: readonly T[];
  onChange: (v: T[]) => void;
}) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {options.map(([key, label]) => {
        const on = value.includes(key);
        return (
          <label key={key} className="check">
            <input
              type="checkbox"
              checked={on}
              disabled={on && value.length === 1}
              onChange={() => onChange(on ? value.filter((v) => v !== key) : options.map(([k]) => k).filter((k) => k === key || value.includes(k)))}
            />
            {label}
          </label>
        );
      })}
    </fieldset>
  );
}

/**
 * A number within the design schema's bounds for `part`.`field` (the OpenAPI document's, not
 * copies); `step` where the API takes fractions (the font size), else whole numbers.
 */
function NumberField({
  label,
  value,
  part,
  field,
  step = 1,
  onChange,
}: {
  label: string;
  value: number;
  part: string;
  field: string;
  step?: number;
  onChange: (n: number) => void;
}) {
  const { minimum: min = 0, maximum: max = Number.MAX_SAFE_INTEGER } = designBound(part, field);
  return (
    <TextField
      label={label}
      type="number"
      min={min}
      max={max}
      step={step}
      value={value}
      onChange={(e) => onChange(Math.min(max, Math.max(min, Number(e.target.value) || min)))}
      hint={`${min} to ${max}`}
    />
  );
}

function ImageChoice({ value, images, onChange }: { value: string; images: readonly Img[]; onChange: (id: string) => void }) {
  return (
    <SelectField label="Image" value={value} onChange={(e) => onChange(e.target.value)} hint="Upload images on the Images page.">
      {images.map((i, n) => (
        <option key={i.imageId} value={i.imageId}>
          Image {n + 1} ({i.width}×{i.height})
        </option>
      ))}
    </SelectField>
  );
}

/** The fields a custom HTML block can show, the org's own custom fields included. */
function FieldPicker({ custom, onPick }: { custom: readonly CustomField[]; onPick: (liquid: string) => void }) {
  const standard = [...IDENTITY_FIELDS, ...CONTACT_FIELDS].map(([k, l]) => [`user.${k}`, l] as const);
  const own = custom.map((f) => [`user.attributes.${f.key}`, f.label] as const);
  return (
    <fieldset className="field-picker">
      <legend>Insert a field</legend>
      <div className="chips">
        {[...standard, ...own, ['org.name', "Organisation's name"] as const].map(([path, label]) => (
          <button key={path} type="button" className="chip" onClick={() => onPick(`{{ ${path} }}`)} title={`{{ ${path} }}`}>
            {label}
          </button>
        ))}
      </div>
      {custom.length === 0 ? <p className="field-hint">Your organisation has no custom fields yet.</p> : null}
    </fieldset>
  );
}

export function BlockSettings({
  block,
  images,
  custom,
  onChange,
}: {
  block: Block;
  images: readonly Img[];
  custom: readonly CustomField[];
  onChange: (b: Block) => void;
}) {
  const textareaId = useId();
  let body: ReactNode;
  switch (block.type) {
    case 'identity':
      body = (
        <Choices legend="Show" options={IDENTITY_FIELDS} value={block.show} onChange={(show) => onChange({ ...block, show: show as typeof block.show })} />
      );
      break;
    case 'contact':
      body = <Choices legend="Show" options={CONTACT_FIELDS} value={block.show} onChange={(show) => onChange({ ...block, show: show as typeof block.show })} />;
      break;
    case 'social':
      body = (
        <>
          <Choices
            legend="Networks"
            options={NETWORKS}
            value={block.networks}
            onChange={(networks) => onChange({ ...block, networks: networks as typeof block.networks })}
          />
          <p className="field-hint">Each person’s own profile links are used, else the organisation’s.</p>
        </>
      );
      break;
    case 'photo':
      body = (
        <>
          <SelectField label="Shape" value={block.shape} onChange={(e) => onChange({ ...block, shape: e.target.value as typeof block.shape })}>
            <option value="circle">Circle</option>
            <option value="square">Square</option>
          </SelectField>
          <NumberField label="Size (px)" value={block.size} part="photo" field="size" onChange={(size) => onChange({ ...block, size })} />
        </>
      );
      break;
    case 'logo':
      body = (
        <>
          <ImageChoice value={block.imageId} images={images} onChange={(imageId) => onChange({ ...block, imageId })} />
          <NumberField label="Width (px)" value={block.width} part="logo" field="width" onChange={(width) => onChange({ ...block, width })} />
          <TextField label="Link (optional)" type="url" value={block.link ?? ''} onChange={(e) => onChange(withLink(block, e.target.value))} />
        </>
      );
      break;
    case 'banner':
      body = (
        <>
          <ImageChoice value={block.imageId} images={images} onChange={(imageId) => onChange({ ...block, imageId })} />
          <TextField
            label="Text for those who do not see images"
            value={block.alt}
            maxLength={designBound('banner', 'alt').maxLength}
            onChange={(e) => onChange({ ...block, alt: e.target.value })}
          />
          <TextField label="Link (optional)" type="url" value={block.link ?? ''} onChange={(e) => onChange(withLink(block, e.target.value))} />
        </>
      );
      break;
    case 'disclaimer':
      body = (
        <div className="field">
          <label htmlFor={textareaId}>Text</label>
          <textarea
            id={textareaId}
            rows={4}
            maxLength={designBound('disclaimer', 'text').maxLength}
            value={block.text}
            onChange={(e) => onChange({ ...block, text: e.target.value })}
          />
        </div>
      );
      break;
    case 'spacer':
      body = <NumberField label="Height (px)" value={block.height} part="spacer" field="height" onChange={(height) => onChange({ ...block, height })} />;
      break;
    case 'button':
      body = (
        <>
          <TextField
            label="Label"
            value={block.label}
            maxLength={designBound('button', 'label').maxLength}
            onChange={(e) => onChange({ ...block, label: e.target.value })}
          />
          <TextField label="Link" type="url" value={block.link} onChange={(e) => onChange({ ...block, link: e.target.value })} />
        </>
      );
      break;
    case 'html':
      body = (
        <>
          <div className="field">
            <label htmlFor={textareaId}>HTML (Liquid)</label>
            <textarea id={textareaId} className="code" rows={6} value={block.html} onChange={(e) => onChange({ ...block, html: e.target.value })} />
          </div>
          <FieldPicker custom={custom} onPick={(liquid) => onChange({ ...block, html: `${block.html}${liquid}` })} />
        </>
      );
      break;
    default:
      body = (
        <p className="muted">{block.type === 'campaign' ? 'An active campaign’s banner shows here, for the people in its audience.' : 'Nothing to set.'}</p>
      );
  }
  return (
    <section className="card designer-panel" aria-labelledby="block-settings-heading">
      <h2 id="block-settings-heading" className="h3">
        {BLOCK_LABELS[block.type]}: settings
      </h2>
      {body}
    </section>
  );
}

function withLink<B extends { link?: string | undefined }>(block: B, link: string): B {
  const { link: _old, ...rest } = block;
  return (link.trim() ? { ...rest, link } : rest) as B;
}

function ColourField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <div className="field colour-field">
      <label htmlFor={id}>{label}</label>
      <span className="colour-field__row">
        <input id={id} type="color" value={value} onChange={(e) => onChange(e.target.value)} />
        <code>{value}</code>
      </span>
    </div>
  );
}

export function StyleControls({ design, onChange }: { design: Design; onChange: (d: Design) => void }) {
  const set = (style: Partial<DesignStyle>) => onChange({ ...design, style: { ...design.style, ...style } });
  return (
    <section className="card designer-panel" aria-labelledby="style-heading">
      <h2 id="style-heading" className="h3">
        Style
      </h2>
      <div className="style-grid">
        <SelectField label="Layout" value={design.layout} onChange={(e) => onChange({ ...design, layout: e.target.value as Design['layout'] })}>
          {LAYOUTS.map(([k, l]) => (
            <option key={k} value={k}>
              {l}
            </option>
          ))}
        </SelectField>
        <SelectField label="Font" value={design.style.fontFamily} onChange={(e) => set({ fontFamily: e.target.value as DesignStyle['fontFamily'] })}>
          {FONTS.map(([k, l]) => (
            <option key={k} value={k}>
              {l}
            </option>
          ))}
        </SelectField>
        <NumberField label="Font size (px)" value={design.style.fontSize} part="style" field="fontSize" step={0.5} onChange={(fontSize) => set({ fontSize })} />
        <ColourField label="Text colour" value={design.style.textColor} onChange={(textColor) => set({ textColor })} />
        <ColourField label="Accent colour" value={design.style.accentColor} onChange={(accentColor) => set({ accentColor })} />
        <ColourField label="Link colour" value={design.style.linkColor} onChange={(linkColor) => set({ linkColor })} />
      </div>
    </section>
  );
}
