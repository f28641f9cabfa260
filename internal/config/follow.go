package config

// FollowReset is the configuration of `registry follow reset`.
type FollowReset struct {
	Database
	Yes bool
}

// Options lists the options of `registry follow reset`.
func (c *FollowReset) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "yes", Default: "false", Usage: "clear the stopped upstream's fork after printing its evidence: the follower replays the upstream's log from the start and trusts its current checkpoint", Value: Bool(&c.Yes)},
	)
}
