package operatortest_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/predicate"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/testenv"
)

// copier is a correct operator: each parent ConfigMap gets a child that
// copies its value, owned by it.
func copier(mgr *manager.Manager) error {
	cms, err := client.For[*corev1.ConfigMap](mgr.Factory(), "")
	if err != nil {
		return err
	}
	parents := predicate.NewFilter(func(cm *corev1.ConfigMap) bool { return cm.Labels["explore-role"] == "parent" })
	return builder.ControllerManagedBy(mgr).Named("copier").
		For(builder.Kind(&corev1.ConfigMap{}, parents)).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			p, err := cms.Get(ctx, req.Namespace, req.Name)
			if err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name + "-child"}}
			_, _, err = cms.CreateOrUpdate(ctx, child, func(c *corev1.ConfigMap) error {
				c.Data = map[string]string{"value": p.Data["value"]}
				return nil
			})
			return reconcile.Result{}, err
		}))
}

func copierSteps(t testing.TB, env *operatortest.Env) {
	cms := operatortest.Client[*corev1.ConfigMap](env)
	p := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace, Name: "p", Labels: map[string]string{"explore-role": "parent"}},
		Data: map[string]string{"value": "1"}}
	if _, err := cms.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	childHas := func(v string) func() error {
		return func() error {
			c, err := cms.Live().Get(t.Context(), env.Namespace, "p-child")
			if err == nil && c.Data["value"] != v {
				err = fmt.Errorf("child value %q, want %q", c.Data["value"], v)
			}
			return err
		}
	}
	testenv.Eventually(t, 10*time.Second, "the child to copy value 1", childHas("1"))
	if _, err := cms.Modify(t.Context(), env.Namespace, "p", func(cm *corev1.ConfigMap) error {
		cm.Data["value"] = "2"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the child to copy value 2", childHas("2"))
}

// A correct operator passes every perturbation, and nothing Explore
// started outlives it.
func TestExploreCorrectOperator(t *testing.T) {
	operatortest.Explore(t, copier, copierSteps, builtIn)
	var left []string
	testenv.Eventually(t, 10*time.Second, "every goroutine of the runs to end", func() bool {
		left = steadyGoroutines()
		return len(left) == 0
	})
}

// steadyGoroutines returns the stacks of the goroutines running steady's
// code other than the control plane's and the calling test's.
func steadyGoroutines() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n")[1:] { // the first is the caller
		if strings.Contains(g, "github.com/steadyctl/steady/") && !strings.Contains(g, "steady/testenv.") {
			out = append(out, g)
		}
	}
	return out
}

// Each buggy operator fails exploration, and its corrected twin passes.
func TestExploreFindsEachBug(t *testing.T) {
	// The never-settling operator fails at the bound; the others settle
	// in well under a second.
	settle := operatortest.WithSettleTimeout(8 * time.Second)
	for _, c := range buggyCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			buggy := operatortest.Findings(t, c.buggy, c.scenario, nil, settle, builtIn)
			if len(buggy) == 0 {
				t.Errorf("the buggy operator passed exploration")
			}
			for name, f := range buggy {
				t.Logf("buggy: %s: %s", name, f[0])
			}
			for name, f := range operatortest.Findings(t, c.fixed, c.scenario, nil, settle, builtIn) {
				t.Errorf("the fixed operator failed %s:\n%s", name, strings.Join(f, "\n"))
			}
		})
	}
}

// A failure's replay reproduces it every time: the perturbation is keyed
// to a write, not to a moment.
func TestExploreReplayReproduces(t *testing.T) {
	c := buggyCases[3] // unconditional-overwrite: found by its end state, without a timeout
	const name = "conflict@update:configmaps:p-child"
	for i := range 10 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			found := operatortest.Findings(t, c.buggy, c.scenario, func(n string) bool { return n == name }, builtIn)
			if len(found[name]) == 0 || !strings.Contains(found[name][0], "another writer's change was lost") {
				t.Errorf("replaying %s found %q", name, found)
			}
		})
	}
}

// TestExploreBuggy explores the buggy operator named by
// $STEADY_EXPLORE_BUGGY (a name of buggyCases), to show Explore's reports
// and check their replay commands by hand:
//
//	STEADY_EXPLORE_BUGGY=finalizerless-cleanup go test -run TestExploreBuggy -v ./operatortest
func TestExploreBuggy(t *testing.T) {
	name := os.Getenv("STEADY_EXPLORE_BUGGY")
	if name == "" {
		t.Skip("set STEADY_EXPLORE_BUGGY to a buggy case's name")
	}
	for _, c := range buggyCases {
		if c.name == name {
			operatortest.Explore(t, c.buggy, c.scenario, builtIn)
			return
		}
	}
	t.Fatalf("no buggy case named %q", name)
}
