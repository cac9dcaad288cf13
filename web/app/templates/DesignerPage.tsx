// The signature designer (its own lazy chunk): the design's blocks (add, remove, reorder by drag
// and drop or keyboard), the selected block's settings, the style, and the live preview. Saving
// sends the design; the service compiles it into the template's html and text. "Edit as HTML"
// hands the compiled template to the code editor for what no block does.
import { useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { LeaveGuard } from '../../shared/components/LeaveGuard.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { designBound, maxLengthOf } from '../../shared/api/field-limits.ts';
import { useLimits } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import { BlockList, type Item } from './BlockList.tsx';
import { BlockSettings, StyleControls } from './BlockSettings.tsx';
import { DesignPreviewPanel } from './DesignPreviewPanel.tsx';
import { BLOCK_LABELS, newBlock, samplePerson, type BlockType, type Design } from './design-model.ts';
import { useCustomFields, useDesignActions, useDesignPreview, useOrgName, usePickerImages, type DesignedTemplate } from './api.ts';
import './designer.css';

const ADDABLE: BlockType[] = ['identity', 'contact', 'photo', 'logo', 'social', 'banner', 'campaign', 'button', 'disclaimer', 'divider', 'spacer', 'html'];

export default function DesignerPage({ initial, design, onEditHtml }: { initial: DesignedTemplate; design: Design; onEditHtml: () => void }) {
  const actions = useDesignActions();
  const limits = useLimits();
  const nextId = useRef(0);
  const withIds = (d: Design): Item[] => d.blocks.map((block) => ({ id: `b${nextId.current++}`, block }));
  const [base, setBase] = useState(initial);
  const [saved, setSaved] = useState<{ name: string; design: string }>({ name: initial.name, design: JSON.stringify(design) });
  const [name, setName] = useState(initial.name);
  const [frame, setFrame] = useState<Omit<Design, 'blocks'>>({ version: design.version, layout: design.layout, style: design.style });
  const [items, setItems] = useState<Item[]>(() => withIds(design));
  const [selected, setSelected] = useState<string | undefined>(items[0]?.id);
  const [adding, setAdding] = useState<BlockType>('social');
  const [userId, setUserId] = useState<string | undefined>(undefined);
  const [saveWarnings, setSaveWarnings] = useState<string[]>([]);
  const images = usePickerImages(true).data?.items ?? [];
  const custom = useCustomFields();
  const orgName = useOrgName();
  const current: Design = useMemo(() => ({ ...frame, blocks: items.map((i) => i.block) }), [frame, items]);
  const sample = useMemo(() => samplePerson(custom, orgName), [custom, orgName]);
  const preview = useDesignPreview(current, userId ? { userId } : { sample });
  const dirty = name !== saved.name || JSON.stringify(current) !== saved.design;

  const save = useMutation(async () => {
    const answer = await actions.save(base, { name: name.trim(), design: current });
    setBase(answer);
    setSaved({ name: answer.name, design: JSON.stringify(current) });
    setSaveWarnings(answer.warnings ?? []);
    notices.show({ kind: 'success', text: `Saved (version ${answer.version}).` });
  });

  const add = () => {
    const block = newBlock(adding, images[0]?.imageId);
    if (!block) return;
    const item = { id: `b${nextId.current++}`, block };
    setItems((list) => [...list, item]);
    setSelected(item.id);
  };
  const chosen = items.find((i) => i.id === selected);
  const needsImage = (adding === 'logo' || adding === 'banner') && images.length === 0;

  return (
    <>
      <PageHeader
        title={`Design: ${base.name}`}
        actions={
          <>
            <Button onClick={onEditHtml} disabled={dirty} title={dirty ? 'Save your changes first' : 'Switch to the HTML code editor'}>
              Edit as HTML
            </Button>
            <Button variant="primary" onClick={() => void save.run()} disabled={!dirty || save.pending || !name.trim()}>
              {save.pending ? 'Saving…' : dirty ? 'Save' : 'Saved'}
            </Button>
          </>
        }
      >
        <Link to="..">All templates</Link> · version {base.version}
        {dirty ? <span className="pill pill-warning">Unsaved changes</span> : null}
      </PageHeader>
      <ErrorMessage error={save.error} />
      <div className="designer">
        <div className="designer__edit">
          <TextField label="Name" value={name} maxLength={maxLengthOf('updateTemplate', 'name')} onChange={(e) => setName(e.target.value)} />
          <section className="card designer-panel" aria-labelledby="blocks-heading">
            <h2 id="blocks-heading" className="h3">
              Blocks
            </h2>
            <BlockList items={items} selected={selected} onSelect={setSelected} onChange={setItems} />
            <div className="add-block">
              <SelectField
                label="Block to add"
                value={adding}
                onChange={(e) => setAdding(e.target.value as BlockType)}
                hint={needsImage ? 'Upload an image on the Images page first.' : undefined}
              >
                {ADDABLE.map((t) => (
                  <option key={t} value={t}>
                    {BLOCK_LABELS[t]}
                  </option>
                ))}
              </SelectField>
              <Button onClick={add} disabled={needsImage || items.length >= (designBound('design', 'blocks').maxItems ?? Infinity)}>
                Add block
              </Button>
            </div>
          </section>
          {chosen ? (
            <BlockSettings
              block={chosen.block}
              images={images}
              custom={custom}
              onChange={(block) => setItems((list) => list.map((i) => (i.id === chosen.id ? { ...i, block } : i)))}
            />
          ) : null}
          <StyleControls design={current} onChange={(d) => setFrame({ version: d.version, layout: d.layout, style: d.style })} />
        </div>
        <div className="designer__preview">
          <DesignPreviewPanel preview={preview} userId={userId} onUser={setUserId} limit={limits.renderBytes} saveWarnings={saveWarnings} />
        </div>
      </div>
      <LeaveGuard dirty={dirty && !save.pending} what="your design" />
    </>
  );
}
