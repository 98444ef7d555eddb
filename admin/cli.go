package admin

import (
	"context"

	"github.com/memproxy/memproxy/policy"
)

// ExportUser collects everything of user (in namespace ns, or every
// namespace when ns is "") exactly as GET /admin/v1/users/{user}/export
// does, so `memproxy export` can read a store directly with no server
// running. pol supplies the decay settings Markdown shows as retention
// (nil means policy.Default()).
func ExportUser(ctx context.Context, st Store, pol *policy.Policy, user, ns string) (*Export, error) {
	if _, err := scopeFor(user, ns); err != nil {
		return nil, err
	}
	return New(Config{Store: st, Policy: pol}).collect(ctx, user, ns)
}

// RenderMarkdown renders an export as the API's Markdown note; pol gives
// the decay settings behind the retention figures (nil: policy.Default()).
func RenderMarkdown(ex *Export, pol *policy.Policy) string {
	return New(Config{Policy: pol}).markdown(ex)
}
