import { createBrowserRouter } from 'react-router';
import { NotFound } from '../components/NotFound';
import { LoginScreen } from '../features/auth/LoginScreen';
import { FindingRoute } from '../features/findings/FindingScreen';
import { DashboardScreen } from '../features/dashboard/DashboardScreen';
import { OrgRoute } from '../features/orgs/OrgScreen';
import { RepoRoute } from '../features/repos/RepoScreen';
import { UploadRoute } from '../features/repos/UploadScreen';
import { SettingsScreen } from '../features/settings/SettingsScreen';
import { SiteAuditScreen } from '../features/audit/SiteAuditScreen';
import { AdvisoryRoute } from '../features/advisories/AdvisoryScreen';
import { SignedInLayout } from './layout';

/**
 * Every screen's URL. Tabs, filters and pages are query parameters of these (`?tab=components&
 * severity=high&page=2`), so a shared or reloaded link shows the same view.
 */
export const router = createBrowserRouter([
  { path: '/login', element: <LoginScreen /> },
  {
    element: <SignedInLayout />,
    children: [
      { index: true, element: <DashboardScreen /> },
      { path: 'settings', element: <SettingsScreen /> },
      { path: 'audit', element: <SiteAuditScreen /> },
      { path: 'orgs/:orgId', element: <OrgRoute /> },
      { path: 'repos/:repoId', element: <RepoRoute /> },
      { path: 'repos/:repoId/uploads/:uploadId', element: <UploadRoute /> },
      { path: 'findings/:findingId', element: <FindingRoute /> },
      { path: 'advisories/:advisoryId', element: <AdvisoryRoute /> },
      { path: '*', element: <NotFound /> },
    ],
  },
]);
