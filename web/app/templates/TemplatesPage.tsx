// Templates: the org's list (name, default, last change), a new template from a starter or blank,
// and, under templates/<id>, the editor (its own lazily loaded chunk: CodeMirror is most of the
// app's weight, and only admins editing a template need it).
import { lazy, Suspense, useState } from 'react';
import { Link, Route, Routes, useNavigate } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { Loading } from '../../shared/components/Status.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { NewTemplateDialog } from './NewTemplateDialog.tsx';
import { useTemplates } from './api.ts';
import './templates.css';

const TemplateEditorPage = lazy(() => import('./TemplateEditorPage.tsx'));

export default function TemplatesPage() {
  return (
    <Routes>
      <Route index element={<TemplateList />} />
      <Route
        path=":templateId"
        element={
          <Suspense fallback={<Loading label="Loading the editor…" />}>
            <TemplateEditorPage />
          </Suspense>
        }
      />
    </Routes>
  );
}

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function TemplateList() {
  const templates = useTemplates();
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  return (
    <section className="page">
      <PageHeader
        title="Templates"
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            New template
          </Button>
        }
      >
        The signatures your organisation sends. The default template is the one every person's signature is rendered with.
      </PageHeader>
      {templates.data && templates.data.items.length > 0 && !templates.data.items.some((t) => t.isDefault) ? (
        <div className="alert alert-warning" role="status">
          <p>No template is the default, so nobody's signature can be rendered. Open a template and choose “Set as default”.</p>
        </div>
      ) : null}
      <ListTable
        items={templates.data?.items}
        loading={templates.loading}
        error={templates.error}
        label="Templates"
        empty="No templates yet. Start from a starter design with “New template”."
        columns={['Name', 'Default', 'Last changed', 'Version']}
        row={(t) => (
          <tr key={t.templateId}>
            <td>
              <Link to={t.templateId}>{t.name}</Link>
            </td>
            <td>{t.isDefault ? <span className="pill pill-success">Default</span> : <span className="muted">—</span>}</td>
            <td>{when(t.updatedAt)}</td>
            <td>{t.version}</td>
          </tr>
        )}
      />
      <NewTemplateDialog open={creating} onClose={() => setCreating(false)} onCreated={(id) => navigate(id)} />
    </section>
  );
}
