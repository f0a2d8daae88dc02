package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1"
)

// webImage serves the pages: nginx, as a user other than root, on port
// 8080.
const webImage = "docker.io/nginxinc/nginx-unprivileged:1.27-alpine"

// pagesHashAnnotation on the pod template carries a hash of the pages, so
// that a change of the pages rolls the web servers at once: a mounted
// ConfigMap is updated in running pods only at the kubelet's next sync,
// a minute or more later.
const pagesHashAnnotation = "tutorial.steady.dev/pages-sha256"

// configMapName is the name of the site's ConfigMap; the Deployment and
// the Service take the site's own name.
func configMapName(site *v1.StaticSite) string { return site.Name + "-pages" }

// selectorLabels select the site's web server pods; every child carries
// them.
func selectorLabels(site *v1.StaticSite) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":     "staticsite",
		"app.kubernetes.io/instance": site.Name,
	}
}

// desiredConfigMap is the ConfigMap of the site's pages, as an apply
// configuration: the fields this operator decides, nothing else.
func desiredConfigMap(site *v1.StaticSite, owner *metav1ac.OwnerReferenceApplyConfiguration) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(configMapName(site), site.Namespace).
		WithLabels(selectorLabels(site)).
		WithOwnerReferences(owner).
		WithData(pageData(site.Spec.Pages))
}

// pageData is the ConfigMap data of pages: each page's content under its
// name, the file name the web servers find it under.
func pageData(pages []v1.Page) map[string]string {
	data := make(map[string]string, len(pages))
	for _, p := range pages {
		data[p.Name] = p.Content
	}
	return data
}

// desiredDeployment is the Deployment of web servers that serve the
// ConfigMap's pages.
func desiredDeployment(site *v1.StaticSite, owner *metav1ac.OwnerReferenceApplyConfiguration) *appsv1ac.DeploymentApplyConfiguration {
	labels := selectorLabels(site)
	web := corev1ac.Container().
		WithName("web").
		WithImage(webImage).
		WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(8080)).
		WithVolumeMounts(corev1ac.VolumeMount().WithName("pages").WithMountPath("/usr/share/nginx/html").WithReadOnly(true))
	pages := corev1ac.Volume().
		WithName("pages").
		WithConfigMap(corev1ac.ConfigMapVolumeSource().WithName(configMapName(site)))
	return appsv1ac.Deployment(site.Name, site.Namespace).
		WithLabels(labels).
		WithOwnerReferences(owner).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(ptr.Deref(site.Spec.Replicas, 1)).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(labels).
				WithAnnotations(map[string]string{pagesHashAnnotation: pagesHash(pageData(site.Spec.Pages))}).
				WithSpec(corev1ac.PodSpec().WithContainers(web).WithVolumes(pages))))
}

// desiredService is the Service in front of the web servers, on port 80.
func desiredService(site *v1.StaticSite, owner *metav1ac.OwnerReferenceApplyConfiguration) *corev1ac.ServiceApplyConfiguration {
	return corev1ac.Service(site.Name, site.Namespace).
		WithLabels(selectorLabels(site)).
		WithOwnerReferences(owner).
		WithSpec(corev1ac.ServiceSpec().
			WithSelector(selectorLabels(site)).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80).WithTargetPort(intstr.FromString("http"))))
}

// pagesHash is a hash of the pages' data, the same whatever the order.
func pagesHash(pages map[string]string) string {
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		// Each string after its length, so that no two sets of pages
		// hash the same by moving bytes from one string to the next.
		fmt.Fprintf(h, "%d:%s%d:%s", len(name), name, len(pages[name]), pages[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}
