// Package metadata holds the one rule about metadata that package
// conversion's handler applies to every conversion, so that package
// conversiontest checks conversions under the same rule.
package metadata
