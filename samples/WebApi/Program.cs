using ScalableMetrics.Samples.WebApi;

// Listens where --urls says (default http://127.0.0.1:5000); see WebApiApp.
await WebApiApp.Create(args).RunAsync();
