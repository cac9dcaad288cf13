// The templates feature's reads and writes, under the query keys ['templates', orgId, …] (the
// profile page reads the default template under the same prefix, so a save refreshes it too),
// and the editor's live preview.
import { useEffect, useRef, useState } from 'react';
import { call } from '../../shared/api/client.ts';
import { retryTransient } from '../../shared/api/transient.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useImageList, useOrgResource, useTemplateList, useUserList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import { largestPage } from '../../shared/api/field-limits.ts';
import type { Schemas } from '../../shared/api/types.ts';
import type { PreviewState } from './Preview.tsx';
import type { Design, samplePerson } from './design-model.ts';

export type Template = Schemas['Template'];
export type Starter = Schemas['StarterTemplate'];
export type TemplateChanges = { name?: string; html?: string; text?: string; isDefault?: boolean };

export function useTemplates() {
  return useTemplateList(useOrg().orgId);
}

export function useTemplate(templateId: string) {
  const { api, orgId } = useOrg();
  return useQuery(['templates', orgId, 'one', templateId], () =>
    call(api.GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId } } })),
  );
}

/** The starter templates an admin can begin from (GET …/templates/starters). */
export function useStarters() {
  const { api, orgId } = useOrg();
  return useQuery(
    ['templates', orgId, 'starters'],
    async () => (await call(api.GET('/v1/orgs/{orgId}/templates/starters', { params: { path: { orgId } } }))).items,
  );
}

/** Whom the preview may render as: the org's users matching `q` (the first 50). */
export function usePreviewUsers(q: string) {
  return useUserList(useOrg().orgId, { limit: 50, ...(q ? { q } : {}) });
}

/** The org's images to insert (read when the picker opens). */
export function usePickerImages(open: boolean) {
  return useImageList(useOrg().orgId, { limit: largestPage('listImages') }, { enabled: open });
}

export function useTemplateActions() {
  const { api, orgId } = useOrg();
  return {
    async create(body: { name: string; html: string; text: string }) {
      const created = await call(api.POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId } }, body }));
      await invalidate(['templates', orgId]);
      return created;
    },
    /** A save against the version read (in the body and as If-Match): a lost race is 409 or 412. */
    async update(base: Template, changes: TemplateChanges) {
      const saved = await call(
        api.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
          params: { path: { orgId, templateId: base.templateId }, header: { 'If-Match': `"${base.version}"` } },
          body: { version: base.version, ...changes },
        }),
      );
      await invalidate(['templates', orgId]);
      return saved;
    },
    async remove(template: Template) {
      await call(api.DELETE('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId: template.templateId } } }));
      await invalidate(['templates', orgId]);
    },
    /** The template as it is now (after a save lost a race). */
    current(template: Template) {
      return call(api.GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId: template.templateId } } }));
    },
  };
}

export const PREVIEW_DEBOUNCE_MS = 400;

/**
 * The editor's live preview: each change of the source or of the user waits for a pause in typing
 * (debounced), then asks the service's preview route; an answer that arrives after a newer request
 * was sent is dropped, so the preview never shows an older source than the editor.
 */
export function usePreview(input: { userId: string | undefined; html: string; text: string }) {
  const { api, orgId } = useOrg();
  const [preview, setPreview] = useState<PreviewState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);

  useEffect(() => {
    const userId = input.userId;
    if (!userId) return;
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      setBusy(true);
      retryTransient(
        () => call(api.POST('/v1/orgs/{orgId}/templates/preview', { params: { path: { orgId } }, body: { userId, html: input.html, text: input.text } })),
        () => ticket === latest.current,
      ).then(
        (data) => {
          if (ticket !== latest.current) return;
          setPreview({ html: data.html, text: data.text, bytes: data.bytes, warnings: data.warnings });
          setError(null);
          setBusy(false);
        },
        (err: unknown) => {
          if (ticket !== latest.current) return;
          setError(err);
          setBusy(false);
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, orgId, input.userId, input.html, input.text]);

  return { preview, error, busy };
}

// ---- The designer (DECISIONS wave 3, "Signature designer and richer profiles") ----
export type DesignedTemplate = Template;
/** A starter; `design`, `description` and `thumbnailUrl` where the service gives them (the gallery). */
export type DesignStarter = Starter & { description?: string; design?: Design; thumbnailUrl?: string };
export type CustomField = Schemas['CustomField'];
export type Compiled = Schemas['CompiledDesign'];

/** The org's custom fields, for the designer's field pickers (`fields` on the org resource). */
export function useCustomFields(): readonly CustomField[] {
  return useOrgResource(useOrg().orgId).data?.fields ?? NO_FIELDS;
}
const NO_FIELDS: readonly CustomField[] = [];

export function useOrgName(): string {
  return useOrgResource(useOrg().orgId).data?.name ?? 'Example Ltd';
}

export function useDesignActions() {
  const { api, orgId } = useOrg();
  return {
    async createFromStarter(name: string, design: Design) {
      const created = await call(api.POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId } }, body: { name, design } }));
      await invalidate(['templates', orgId]);
      return created;
    },
    /** Saves the design (and name) against the version read; the answer's html and text are the compiled ones. */
    async save(base: Template, changes: { name?: string; design: Design }) {
      const saved = await call(
        api.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
          params: { path: { orgId, templateId: base.templateId }, header: { 'If-Match': `"${base.version}"` } },
          body: { version: base.version, ...changes },
        }),
      );
      await invalidate(['templates', orgId]);
      return saved;
    },
  };
}

export interface DesignPreview {
  compiled: Compiled | null;
  /** The compiled template rendered for the chosen user (the service) or the sample person (here). */
  rendered: PreviewState | null;
  error: unknown;
  busy: boolean;
}

/**
 * The designer's live preview: after a pause in editing, the service compiles the design
 * (`…/templates/compile`, nothing saved), then the compiled template is rendered as the chosen user
 * through the preview route, or as the sample person (every field filled) in the browser with
 * liquidjs, the engine the service renders with. An answer older than the latest request is dropped.
 */
export function useDesignPreview(design: Design, who: { userId: string } | { sample: ReturnType<typeof samplePerson> }): DesignPreview {
  const { api, orgId } = useOrg();
  const [state, setState] = useState<DesignPreview>({ compiled: null, rendered: null, error: null, busy: true });
  const latest = useRef(0);
  const key = JSON.stringify(design);
  const whoKey = 'userId' in who ? who.userId : JSON.stringify(who.sample);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the design's content (key) or the person (whoKey) change, not on every new object
  useEffect(() => {
    const ticket = ++latest.current;
    setState((s) => ({ ...s, busy: true }));
    const timer = setTimeout(() => {
      const wanted = () => ticket === latest.current;
      void retryTransient(async () => {
        const compiled = await call(api.POST('/v1/orgs/{orgId}/templates/compile', { params: { path: { orgId } }, body: { design } }));
        let rendered: PreviewState;
        if ('userId' in who) {
          rendered = await call(
            api.POST('/v1/orgs/{orgId}/templates/preview', {
              params: { path: { orgId } },
              body: { userId: who.userId, html: compiled.html, text: compiled.text },
            }),
          );
        } else {
          const [html, text] = await Promise.all([renderSample(compiled.html, who.sample), renderSample(compiled.text, who.sample)]);
          rendered = { html, text, bytes: new Blob([html]).size, warnings: [] };
        }
        return { compiled, rendered };
      }, wanted).then(
        ({ compiled, rendered }) => {
          if (wanted()) setState({ compiled, rendered, error: null, busy: false });
        },
        (error: unknown) => {
          if (wanted()) setState((s) => ({ ...s, error, busy: false }));
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // `design` and `who` are read through their keys: a new object with the same content is no change.
  }, [api, orgId, key, whoKey]);
  return state;
}

// liquidjs loads with the first sample preview only (it is not in the templates list's chunk).
let sampleEngine: Promise<import('liquidjs').Liquid> | undefined;
async function renderSample(source: string, data: object): Promise<string> {
  // A failed load (the chunk's request lost) is forgotten, so the next preview loads it again.
  sampleEngine ??= import('liquidjs').then(
    ({ Liquid }) => new Liquid({ outputEscape: 'escape', ownPropertyOnly: true, renderLimit: 200 }),
    (err: unknown) => {
      sampleEngine = undefined;
      throw err;
    },
  );
  return (await sampleEngine).parseAndRender(source, data) as Promise<string>;
}
