package leases_test

import (
	"testing"

	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
