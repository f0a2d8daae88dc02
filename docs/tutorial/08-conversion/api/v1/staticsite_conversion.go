package v1

// Hub marks v1 as the version every other version of StaticSite converts
// to and from (conversion.Hub).
func (*StaticSite) Hub() {}
