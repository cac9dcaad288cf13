// The organisations section: the searchable list, creating one, and one org's page.
import { Route, Routes } from 'react-router';
import OrgList from './OrgList.tsx';
import CreateOrg from './CreateOrg.tsx';
import OrgDetail from './OrgDetail.tsx';

export default function OrgsSection() {
  return (
    <Routes>
      <Route index element={<OrgList />} />
      <Route path="new" element={<CreateOrg />} />
      <Route path=":orgId" element={<OrgDetail />} />
    </Routes>
  );
}
