// A campaign's banners: as many variants as the API allows (at least one), each an image of the
// org's, the link it leads to, its text and its weight, a share of the audience (0 pauses it).
import { Button } from '../../shared/components/Button.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { boundOf } from '../../shared/api/field-limits.ts';
import { useImages } from './api.ts';

export interface VariantForm {
  /** The row's React key (rows are added and removed anywhere). */
  key: string;
  imageId: string;
  link: string;
  alt: string;
  weight: string;
}

let rows = 0;
export const emptyVariant = (): VariantForm => ({ key: `variant-${++rows}`, imageId: '', link: '', alt: '', weight: '1' });

const bound = (field: string) => boundOf('createCampaign', `variants[].${field}`);

export function VariantFields({ value, onChange }: { value: VariantForm[]; onChange: (variants: VariantForm[]) => void }) {
  const images = useImages();
  const { minItems = 1, maxItems } = boundOf('createCampaign', 'variants');
  const set = (i: number, patch: Partial<VariantForm>) => onChange(value.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const total = value.reduce((n, v) => n + (Number(v.weight) || 0), 0);
  const weight = bound('weight');
  return (
    <>
      {value.map((v, i) => {
        const n = i + 1;
        const share = total > 0 ? Math.round(((Number(v.weight) || 0) / total) * 100) : 0;
        return (
          <fieldset key={v.key} className="campaign-group" aria-label={`Variant ${n}`}>
            <legend>Variant {n}</legend>
            <div className="grid">
              <SelectField label={`Variant ${n} image`} value={v.imageId} required onChange={(e) => set(i, { imageId: e.target.value })}>
                <option value="">Choose an image…</option>
                {images.data?.items.map((img) => (
                  <option key={img.imageId} value={img.imageId}>
                    {img.width}×{img.height} {img.contentType} ({img.imageId.slice(0, 8)})
                  </option>
                ))}
              </SelectField>
              <TextField
                label={`Variant ${n} link`}
                type="url"
                required
                value={v.link}
                maxLength={bound('link').maxLength}
                onChange={(e) => set(i, { link: e.target.value })}
              />
              <TextField
                label={`Variant ${n} text`}
                value={v.alt}
                maxLength={bound('alt').maxLength}
                hint="For readers without images"
                onChange={(e) => set(i, { alt: e.target.value })}
              />
              <TextField
                label={`Variant ${n} weight`}
                type="number"
                required
                min={weight.minimum}
                max={weight.maximum}
                value={v.weight}
                hint={Number(v.weight) === 0 ? 'Paused' : `${share}% of the audience`}
                onChange={(e) => set(i, { weight: e.target.value })}
              />
            </div>
            {value.length > minItems ? (
              <Button className="btn-small" onClick={() => onChange(value.filter((_, j) => j !== i))} aria-label={`Remove variant ${n}`}>
                Remove
              </Button>
            ) : null}
          </fieldset>
        );
      })}
      <div className="campaign-add">
        <Button className="btn-small" disabled={maxItems !== undefined && value.length >= maxItems} onClick={() => onChange([...value, emptyVariant()])}>
          Add a variant
        </Button>
      </div>
    </>
  );
}
