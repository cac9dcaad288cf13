// Microsoft 365: the Outlook add-in (download the manifest, the admin center steps in plain words,
// the key and its rotation, when each user's signature was last fetched) and the Entra ID directory
// sync (connect, sync now or preview, its state).
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { OutlookAddinCard } from './OutlookAddinCard.tsx';
import { EntraCard } from './EntraCard.tsx';
import './microsoft.css';

export default function Microsoft365Page() {
  return (
    <section className="page">
      <PageHeader title="Microsoft 365">
        Insert each sender's signature in Outlook with an add-in your Microsoft 365 admin deploys once, and keep your users in step with Entra ID.
      </PageHeader>
      <OutlookAddinCard />
      <EntraCard />
    </section>
  );
}
