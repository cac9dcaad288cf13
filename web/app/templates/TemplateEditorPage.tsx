// Editing one template: name, HTML and plain-text sources in CodeMirror (Liquid highlighting, merge
// field completion), a live preview rendered by the service as any user of the org, the warnings and
// size as you type, save (with the version read: a save that lost a race says so and offers to
// reload or keep editing), set as default, insert an image, delete.
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { LeaveGuard } from '../../shared/components/LeaveGuard.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { ApiError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { useLimits, useOrg } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import type { EditorHandle } from './LiquidEditor.tsx';
import { PreviewFrame, SizeMeter } from './Preview.tsx';
import { PreviewUserPicker } from './PreviewUserPicker.tsx';
import { ImagePicker } from './ImagePicker.tsx';
import { ALL_FIELDS } from './merge-fields.ts';
import { friendlyLiquid } from './liquid-words.ts';
import { useSettled } from '../../shared/use-settled.ts';
import { useDesignActions, usePreview, useTemplate, useTemplateActions, type DesignedTemplate, type Template, type TemplateChanges } from './api.ts';

// The designer is its own chunk: dnd-kit and the block editors load only when a design is opened.
const DesignerPage = lazy(() => import('./DesignerPage.tsx'));
// CodeMirror is its own chunk too: a design opens without it.
const LiquidEditor = lazy(() => import('./LiquidEditor.tsx'));
import './templates.css';

export default function TemplateEditorPage() {
  const { templateId = '' } = useParams();
  const template = useTemplate(templateId);
  return (
    <section className="page">
      {template.loading && !template.data ? <Loading /> : null}
      <ErrorMessage error={template.error}>
        <p>
          <Link to="..">Back to the templates</Link>
        </p>
      </ErrorMessage>
      {template.data ? <Chooser key={template.data.templateId} initial={template.data} /> : null}
    </section>
  );
}

/** A template made from a design opens in the designer, one written by hand in the code editor. */
function Chooser({ initial }: { initial: DesignedTemplate }) {
  const [mode, setMode] = useState<'design' | 'html'>(initial.design && initial.source !== 'html' ? 'design' : 'html');
  // The newest version known: the query's (refreshed after every save) or a switch's own answer.
  const [switched, setSwitched] = useState<Template | null>(null);
  const current = switched && switched.version > initial.version ? switched : initial;
  if (mode === 'design' && current.design) {
    return (
      <Suspense fallback={<Loading label="Loading the designer…" />}>
        <DesignerPage initial={current} design={current.design} onEditHtml={() => setMode('html')} />
      </Suspense>
    );
  }
  return (
    <Editor
      initial={current}
      onBackToDesign={(saved) => {
        setSwitched(saved);
        setMode('design');
      }}
    />
  );
}

interface Draft {
  name: string;
  html: string;
  text: string;
}

/** A save that lost a race: 409 (the body's version) or 412 (If-Match), with the current version. */
const isConflict = (err: unknown): err is ApiError => err instanceof ApiError && (err.status === 409 || err.status === 412);

function Editor({ initial, onBackToDesign }: { initial: Template; onBackToDesign: (saved: Template) => void }) {
  const { me } = useOrg();
  const actions = useTemplateActions();
  const designs = useDesignActions();
  const limits = useLimits();
  const navigate = useNavigate();
  // What the server last gave us (the base of the next save) and what the admin is typing.
  const [base, setBase] = useState(initial);
  const [draft, setDraft] = useState<Draft>({ name: initial.name, html: initial.html, text: initial.text });
  const [previewUser, setPreviewUser] = useState<string | undefined>(me.userId);
  const [picking, setPicking] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [warnings, setWarnings] = useState<string[]>([]);
  const htmlEditor = useRef<EditorHandle>(null);
  const dirty = draft.name !== base.name || draft.html !== base.html || draft.text !== base.text;
  const preview = usePreview({ userId: previewUser, html: draft.html, text: draft.text });

  const write = async (changes: TemplateChanges) => {
    const saved = await actions.update(base, changes);
    setBase(saved);
    setWarnings(saved.warnings);
    return saved;
  };
  const save = useMutation(async () => {
    const saved = await write({ name: draft.name.trim(), html: draft.html, text: draft.text });
    notices.show({ kind: 'success', text: `Saved (version ${saved.version}).` });
    return saved;
  });
  const makeDefault = useMutation(async () => {
    await write({ isDefault: true });
    notices.show({ kind: 'success', text: 'This is now the default template.' });
  });
  const [confirmDesign, setConfirmDesign] = useState(false);
  // Back to the designer: its last design is compiled again (`PATCH {design}`), replacing hand edits.
  const backToDesign = useMutation(async () => {
    if (!base.design) return;
    const saved = await designs.save(base, { design: base.design });
    setConfirmDesign(false);
    notices.show({ kind: 'success', text: 'Back to the designer: the template is its design again.' });
    onBackToDesign(saved);
  });
  const remove = useMutation(async () => {
    await actions.remove(base);
    notices.show({ kind: 'success', text: `Template “${base.name}” deleted.` });
    navigate('..');
  });

  // Ctrl+S (⌘S) saves, as in any editor, instead of the browser's "save page".
  const saveShortcut = useRef<() => void>(() => {});
  saveShortcut.current = () => {
    if (dirty && !save.pending && draft.name.trim()) void save.run();
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        saveShortcut.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const conflict = [save.error, makeDefault.error].find(isConflict);
  const reload = async () => {
    const current = await actions.current(base);
    setBase(current);
    setDraft({ name: current.name, html: current.html, text: current.text });
    save.reset();
    makeDefault.reset();
  };
  const keepEditing = async () => {
    // The next save overwrites the other change: it is made against the current version.
    const current = await actions.current(base);
    setBase({ ...current, name: base.name, html: base.html, text: base.text });
    save.reset();
    makeDefault.reset();
  };
  const otherError = [save.error, makeDefault.error, remove.error].find((e) => e && !isConflict(e));
  // The size against the render limit: from the last preview, or from the 413 of one over it.
  const tooLarge = preview.error instanceof ApiError && preview.error.status === 413 ? preview.error.details : undefined;
  const size =
    typeof tooLarge?.bytes === 'number'
      ? { bytes: tooLarge.bytes, limit: typeof tooLarge.limitBytes === 'number' ? tooLarge.limitBytes : limits.renderBytes }
      : preview.preview
        ? { bytes: preview.preview.bytes, limit: limits.renderBytes }
        : undefined;
  // A template the service cannot parse (400, with its line) is said calmly once typing pauses;
  // the preview keeps showing the last version that rendered, and the editor marks the line.
  const settledError = useSettled(preview.error, 1200);
  const liquidError = settledError instanceof ApiError && settledError.status === 400 ? settledError : undefined;
  const liquidLine = typeof liquidError?.details?.line === 'number' ? liquidError.details.line : undefined;
  const allWarnings = [...new Set([...(preview.preview?.warnings ?? []), ...warnings])];

  return (
    <>
      <PageHeader
        title={`Template: ${base.name}`}
        actions={
          <>
            {base.isDefault ? (
              <span className="pill pill-success">Default</span>
            ) : (
              <Button onClick={() => void makeDefault.run()} disabled={makeDefault.pending || dirty} title={dirty ? 'Save your changes first' : undefined}>
                Set as default
              </Button>
            )}
            {base.design ? (
              <Button
                onClick={() => setConfirmDesign(true)}
                disabled={dirty}
                title={dirty ? 'Save or undo your changes first' : 'Edit this template in the designer again'}
              >
                Back to the designer
              </Button>
            ) : null}
            <Button variant="danger" onClick={() => setConfirmDelete(true)}>
              Delete
            </Button>
            <Button
              variant="primary"
              onClick={() => void save.run()}
              disabled={!dirty || save.pending || !draft.name.trim()}
              aria-keyshortcuts="Control+S Meta+S"
              title="Save (Ctrl+S)"
            >
              {save.pending ? 'Saving…' : dirty ? 'Save' : 'Saved'}
            </Button>
          </>
        }
      >
        <Link to="..">All templates</Link> · version {base.version}
        {dirty ? <span className="pill pill-warning">Unsaved changes</span> : null}
      </PageHeader>

      {conflict ? (
        <div className="alert alert-warning" role="alert">
          <p>
            <strong>Someone else saved this template while you were editing it</strong>
            {typeof conflict.details?.currentVersion === 'number' ? ` (it is now at version ${conflict.details.currentVersion})` : ''}. Your changes are not
            saved.
          </p>
          <div className="form-actions">
            <Button onClick={() => void reload()}>Reload their version</Button>
            <Button variant="primary" onClick={() => void keepEditing()}>
              Keep editing (my next save replaces theirs)
            </Button>
          </div>
        </div>
      ) : null}
      {otherError ? <ErrorMessage error={otherError} /> : null}

      <Suspense fallback={<Loading label="Loading the editor…" />}>
        <div className="template-editor">
          <div className="template-editor__source">
            <TextField
              label="Name"
              value={draft.name}
              maxLength={maxLengthOf('updateTemplate', 'name')}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            />
            <div className="toolbar">
              <h2 id="html-heading" className="h3">
                HTML signature
              </h2>
              <Button className="btn-small" onClick={() => setPicking(true)}>
                Insert image
              </Button>
            </div>
            <LiquidEditor
              mode="html"
              label="HTML signature (Liquid)"
              value={draft.html}
              onChange={(html) => setDraft((d) => ({ ...d, html }))}
              handle={htmlEditor}
            />
            <p className="field-hint">
              Merge fields (type <code>{'{{'}</code> for completion):{' '}
              {ALL_FIELDS.map((f, i) => (
                <span key={f}>
                  {i > 0 ? ', ' : ''}
                  <code>{f}</code>
                </span>
              ))}
              . Source: {draft.html.length.toLocaleString()} of {limits.templateSourceChars.toLocaleString()} characters.
            </p>
            <h2 className="h3">Plain-text signature</h2>
            <LiquidEditor
              mode="text"
              label="Plain-text signature (Liquid)"
              value={draft.text}
              onChange={(text) => setDraft((d) => ({ ...d, text }))}
              minHeight="6rem"
            />
          </div>
          <div className="template-editor__preview">
            <PreviewUserPicker value={previewUser} onChange={setPreviewUser} />
            {liquidError ? (
              <p className="calm-note" role="status">
                {friendlyLiquid(liquidError.message)}
                {liquidLine ? ` (line ${liquidLine})` : ''} The preview shows the last version that rendered.
              </p>
            ) : preview.error instanceof ApiError && preview.error.status === 400 ? null : (
              <ErrorMessage error={preview.error} />
            )}
            <PreviewFrame preview={preview.preview} busy={preview.busy} />
            {size ? <SizeMeter bytes={size.bytes} limit={size.limit} /> : null}
            <section aria-labelledby="warnings-heading" className="warnings">
              <h3 id="warnings-heading">Warnings</h3>
              {allWarnings.length === 0 ? (
                <p className="muted">None: this signature should show well in the common mail clients.</p>
              ) : (
                <ul>
                  {allWarnings.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              )}
            </section>
          </div>
        </div>
      </Suspense>
      <ImagePicker
        open={picking}
        onClose={() => setPicking(false)}
        onPick={(tag) => {
          setPicking(false);
          htmlEditor.current?.insert(tag);
        }}
      />
      <ConfirmDialog
        title="Back to the designer?"
        open={confirmDesign}
        confirmLabel="Use the design"
        pending={backToDesign.pending}
        onCancel={() => setConfirmDesign(false)}
        onConfirm={() => void backToDesign.run()}
      >
        <p>The template becomes its last design again, compiled afresh: changes made here in the HTML are replaced.</p>
        <ErrorMessage error={backToDesign.error} />
      </ConfirmDialog>
      <LeaveGuard dirty={dirty && !remove.pending} what="your changes to this template" />
      <ConfirmDialog
        title="Delete this template?"
        open={confirmDelete}
        confirmLabel="Delete template"
        pending={remove.pending}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() => void remove.run()}
      >
        <p>
          “{base.name}” will no longer be available to render signatures
          {base.isDefault ? ', and the organisation will have no default template until you choose another' : ''}.
        </p>
      </ConfirmDialog>
    </>
  );
}
