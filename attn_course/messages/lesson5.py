"""Lesson 5's messages: training, entropy and ablation hints, the answers, tables and figures."""

MESSAGES = {
    "returned_not_number": {
        "ja": "{name} は損失を数値（float）で返してください。返ってきたのは {kind} です。",
        "ko": "{name}에서는 손실을 숫자(float)로 반환하세요. 반환된 값의 타입: {kind}",
    },
    "hint_loss_item": {
        "ja": "`return loss.item()` と書くと、1要素のテンソルから float を取り出せます。テンソルの loss をそのまま返すと計算グラフがつながったまま残り、下の学習のセルで損失の曲線を描くところでエラー（RuntimeError）になります。",
        "ko": "`return loss.item()`이라고 쓰면 원소가 하나인 텐서에서 float를 꺼낼 수 있습니다. 텐서인 loss를 그대로 반환하면 계산 그래프가 연결된 채로 남아서, 아래 학습 셀에서 손실 곡선을 그릴 때 오류(RuntimeError)가 납니다.",
    },
    "hint_loss_softmax_twice": {
        "ja": "F.cross_entropy は内部でソフトマックスを計算します。ロジットをそのまま渡してください（先に softmax をかけると二重になります）。",
        "ko": "F.cross_entropy는 안에서 소프트맥스를 계산합니다. 로짓을 그대로 넘기세요(미리 소프트맥스를 적용하면 소프트맥스가 두 번 걸립니다).",
    },
    "hint_loss_layout": {
        "ja": "ロジット (B, T, 2, V) は `reshape(-1, V)` で (B·T·2, V) に、正解 (B, T, 2) は `reshape(-1)` で (B·T·2,) にしてから F.cross_entropy に渡します。正解が −100 の位置は ignore_index=-100 で損失から外します。",
        "ko": "로짓 (B, T, 2, V)는 `reshape(-1, V)`를 써서 (B·T·2, V)로, 정답 (B, T, 2)는 `reshape(-1)`을 써서 (B·T·2,)로 바꾼 뒤 F.cross_entropy에 넘깁니다. 정답이 −100인 위치는 ignore_index=-100으로 손실에서 뺍니다.",
    },
    "hint_zero_grad": {
        "ja": "2回目以降だけ合わないなら、前のステップの勾配に新しい勾配が足し込まれてしまっています。backward() の前に optimizer.zero_grad() を呼んでください。",
        "ko": "두 번째 호출부터만 어긋난다면 이전 스텝의 기울기가 계속 누적되고 있는 것입니다. backward() 전에 optimizer.zero_grad()를 호출하세요.",
    },
    "hint_train_order": {
        "ja": "順番は 損失の計算 → optimizer.zero_grad() → backward() → optimizer.step() です。zero_grad() は backward() より前ならどこでもかまいません。backward() と step() の間に呼ぶと、計算したばかりの勾配が消えてしまいます。",
        "ko": "순서는 손실 계산 → optimizer.zero_grad() → backward() → optimizer.step()입니다. zero_grad()는 backward()보다 앞이기만 하면 어디에 있어도 됩니다. backward()와 step() 사이에서 호출하면 방금 계산한 기울기가 지워집니다.",
    },
    "case_train_call": {
        "ja": "大きさの違うモデル（{sizes}）を勾配が残った状態から AdamW で学習させたときの、train_step の {step} 回目の損失",
        "ko": "크기가 다른 모델({sizes})을 기울기가 남은 상태에서 AdamW로 학습시킬 때 train_step의 {step}번째 손실",
    },
    "case_train_param": {
        "ja": "大きさの違うモデル（{sizes}）を勾配が残った状態から AdamW で学習させたあとのパラメータ {name}",
        "ko": "크기가 다른 모델({sizes})을 기울기가 남은 상태에서 AdamW로 학습시킨 뒤의 파라미터 {name}",
    },
    "case_train_params": {
        "ja": "大きさの違うモデル（{sizes}）を勾配が残った状態から AdamW で学習させたあとのパラメータ",
        "ko": "크기가 다른 모델({sizes})을 기울기가 남은 상태에서 AdamW로 학습시킨 뒤의 파라미터",
    },
    "hint_zero_grad_after_step": {
        "ja": "zero_grad() を step() のあとに呼んでいませんか。それだと1回目の backward() で、train_step を呼ぶ前から残っていた勾配（前のセルで計算した勾配など）に、新しい勾配が足し込まれてしまいます。zero_grad() は backward() より前に呼んでください。",
        "ko": "zero_grad()를 step() 뒤에 호출하고 있지 않나요? 그러면 첫 번째 호출의 backward()에서 새 기울기가, 함수를 호출하기 전부터 남아 있던 기울기(앞 셀에서 계산한 기울기 등)에 더해집니다. zero_grad()는 backward()보다 먼저 호출하세요.",
    },
    "hint_entropy_nan": {
        "ja": "因果マスクで重みがちょうど 0 の位置では 0·log 0 が NaN になります。定義では 0·log 0 = 0 です。torch.special.xlogy(w, w) を使うか、w.clamp_min(1e-12).log() のように 0 を避けてください。",
        "ko": "인과 마스크 때문에 가중치가 정확히 0인 위치에서는 0·log 0이 NaN이 됩니다. 정의상 0·log 0 = 0입니다. torch.special.xlogy(w, w)를 쓰거나 w.clamp_min(1e-12).log()처럼 0을 피하세요.",
    },
    "hint_entropy_nan_float32": {
        "ja": "0 を避けるために足したり clamp_min に渡したりした小さな値が、float32 では 0 に丸められています（float32 で表せるいちばん小さな正の数は約 1.4e-45 です）。1e-12 くらいの値を使うか、torch.special.xlogy(w, w) を使ってください。",
        "ko": "0을 피하려고 더하거나 clamp_min에 넘긴 작은 값이 float32에서는 0으로 반올림됩니다(float32로 나타낼 수 있는 가장 작은 양수는 약 1.4e-45입니다). 1e-12 정도의 값을 쓰거나 torch.special.xlogy(w, w)를 쓰세요.",
    },
    "hint_entropy_dtype": {
        "ja": "途中で .double() などでデータ型を変えず、重みと同じデータ型のまま計算して返してください（float32 の重みなら float32 で返します）。",
        "ko": "중간에 .double() 등으로 자료형을 바꾸지 말고, 가중치와 같은 자료형 그대로 계산해서 반환하세요(float32 가중치라면 float32로 반환합니다).",
    },
    "hint_entropy_log2": {
        "ja": "値が正しい値の 1/ln 2 ≈ 1.44 倍になっています。底が 2 の log（ビット）ではなく、自然対数 torch.log（nat）を使ってください。",
        "ko": "값이 올바른 값의 1/ln 2 ≈ 1.44배입니다. 밑이 2인 log(비트)가 아니라 자연로그 torch.log(nat)를 쓰세요.",
    },
    "hint_entropy_sign": {
        "ja": "符号が逆です。エントロピーは −Σ w log w で、値は 0 以上になります。",
        "ko": "부호가 반대입니다. 엔트로피는 −Σ w log w이고, 값은 0 이상입니다.",
    },
    "hint_entropy_mean_axes": {
        "ja": "行ごとのエントロピー (B, H, T) を、バッチの軸とクエリの軸で平均して (H,) にします: mean(dim=(0, 2))。",
        "ko": "행별 엔트로피 (B, H, T)를 배치 축과 쿼리 축으로 평균해서 (H,)로 만듭니다: mean(dim=(0, 2)).",
    },
    "hint_ablation_output": {
        "ja": "c_proj の出力ではなく入力を 0 にします。入力 (B, T, E) はヘッドの出力を横に並べたもので、ヘッド h は列 h·D から (h+1)·D の手前までです。出力の列はもうヘッドごとに分かれていません。",
        "ko": "c_proj의 출력이 아니라 입력을 0으로 만듭니다. 입력 (B, T, E)는 헤드의 출력을 옆으로 이어 붙인 것이고, 헤드 h는 열 h·D부터 (h+1)·D 직전까지입니다. 출력의 열은 더 이상 헤드별로 나뉘어 있지 않습니다.",
    },
    "hint_ablation_slice": {
        "ja": "0 にしたのは1列だけです。ヘッド h は D 列あります: [..., h * D:(h + 1) * D]。",
        "ko": "0으로 만든 것이 열 하나뿐입니다. 헤드 h는 D개의 열을 차지합니다: [..., h * D:(h + 1) * D].",
    },
    "hint_ablation_nothing": {
        "ja": "損失が元のままです。フックを登録したのは model.blocks[layer].attn.c_proj ですか。フックが新しいテンソルを返さないと、入力は変わりません。",
        "ko": "손실이 원래 그대로입니다. 훅을 model.blocks[layer].attn.c_proj에 등록했나요? 훅이 새 텐서를 반환하지 않으면 입력은 바뀌지 않습니다.",
    },
    "ablation_left_behind": {
        "ja": "loss_without_head を呼んだあと、モデルの出力が元に戻っていません。",
        "ko": "loss_without_head를 호출한 뒤 모델의 출력이 원래대로 돌아오지 않습니다.",
    },
    "hint_ablation_remove": {
        "ja": "register_forward_pre_hook が返すハンドルの remove() を、try ... finally で必ず呼んでください。",
        "ko": "register_forward_pre_hook이 반환하는 핸들의 remove()를 try ... finally 안에서 꼭 호출하세요.",
    },
    "answer_head_range": {
        "ja": "{name} には 0 から {n} までの整数（ヘッドの番号）を入れてください。今の値: {got!r}",
        "ko": "{name}에는 0부터 {n}까지의 정수(헤드 번호)를 넣으세요. 지금 값: {got!r}",
    },
    "hint_ablation_columns": {
        "ja": "0 にした列が、ヘッド h の列からずれています。ヘッド h の列は [..., h * D:(h + 1) * D] の D 個で、h = 0 なら 0:D、h = 1 なら D:2 * D です。スライスの両端を確かめてください。",
        "ko": "0으로 만든 열이 헤드 h의 열이 아닙니다. 헤드 h의 열은 [..., h * D:(h + 1) * D]의 D개이고, h = 0이면 0:D입니다. 슬라이스의 양 끝을 확인하세요.",
    },
    "hint_head_not_int": {
        "ja": "answer_prev_head には、ヘッドの番号を整数（int）で入れます。float(...) で包まずに、int(...) にしてください（たとえば、ヘッドごとの平均が prev なら int(prev.argmax())）。",
        "ko": "answer_prev_head에는 헤드 번호를 정수(int)로 넣습니다. float(...)로 감싸지 말고 int(...)로 바꾸세요(예: 헤드별 평균이 prev라면 int(prev.argmax())).",
    },
    "hint_prev_flat_argmax": {
        "ja": "ヘッドの番号が H 以上になっています（番号は 0 から H − 1 までです）。dim を指定しない argmax は、テンソルの全要素を一列に並べたときの位置を返します。w[:, :, t, t - 1] をバッチとクエリの軸で平均して（mean(dim=(0, 2))）(H,) にしてから argmax をとります。",
        "ko": "헤드 번호의 범위(0~H−1)를 벗어난 번호가 나왔습니다. argmax를 (H,)가 아닌 텐서에 적용하면 모든 원소를 한 줄로 늘어놓았을 때의 위치가 반환됩니다. w[:, :, t, t - 1]을 배치 축과 쿼리 축으로 평균해 (H,)로 만든 뒤 argmax를 구하세요.",
    },
    "answer_weight_range": {
        "ja": "answer_prev_weight は重みの平均なので 0 以上 1 以下のはずです。今の値: {got:.4g}",
        "ko": "answer_prev_weight는 가중치의 평균이므로 0 이상 1 이하여야 합니다. 지금 값: {got:.4g}",
    },
    "hint_loss_argument_order": {
        "ja": "F.cross_entropy(入力, 正解) の順です。1つ目にロジット（float）、2つ目に正解のトークン ID（整数）を渡してください。",
        "ko": "F.cross_entropy(입력, 정답) 순서입니다. 첫 번째에 로짓(float)을, 두 번째에 정답 토큰 ID(정수)를 넘기세요.",
    },
    "hint_loss_scalar": {
        "ja": "損失は数 1 つです。ロジット (B·T·2, V) と正解 (B·T·2,) を F.cross_entropy に渡すと、平均した損失が 1 要素のテンソルで返ります。backward() と item() はその 1 要素のテンソルに対して呼びます。",
        "ko": "손실은 숫자 하나입니다. 로짓 (B·T·2, V)와 정답 (B·T·2,)를 F.cross_entropy에 넘기면, 평균한 손실이 원소 하나짜리 텐서로 반환됩니다. backward()와 item()은 그 텐서에 대해 호출합니다.",
    },
    "hint_model_pair": {
        "ja": "model(x) は (ロジット, 重みのリスト) の組を返します。`logits, _ = model(x)` のように、1つ目を受け取ってください。",
        "ko": "model(x)는 (로짓, 가중치 리스트) 쌍을 반환합니다. `logits, _ = model(x)`처럼 첫 번째 값을 받으세요.",
    },
    "hint_head_width_int": {
        "ja": "スライスの端は整数でなければなりません。ヘッドの幅は整数の割り算で求めます: D = attn.c_proj.in_features // attn.n_head。列は head * D から (head + 1) * D の手前までです。",
        "ko": "슬라이스의 양 끝은 정수여야 합니다. 헤드의 폭은 정수 나눗셈으로 구합니다: D = attn.c_proj.in_features // attn.n_head. 열은 head * D부터 (head + 1) * D 직전까지입니다.",
    },
    "hint_hook_inputs": {
        "ja": "forward_pre_hook が受け取る inputs は、入力をまとめたタプルです。テンソルは inputs[0] で取り出し、書き換えたものを (heads,) のタプルにして返します。",
        "ko": "forward_pre_hook이 받는 inputs는 입력을 묶은 튜플입니다. 텐서는 inputs[0]으로 꺼내고, 바꾼 텐서를 (heads,) 튜플로 만들어 반환합니다.",
    },
    "hint_layer_index": {
        "ja": "model.blocks は層のリスト（nn.ModuleList）です。層 layer の注意は model.blocks[layer].attn です。",
        "ko": "model.blocks는 층의 리스트(nn.ModuleList)입니다. 층 layer의 어텐션은 model.blocks[layer].attn입니다.",
    },
    "prev_untrained": {
        "ja": "このモデルには、直前のトークンを見るヘッドがまだ育っていません（どのヘッドも、直前への重みの平均は最大 {w:.3f}）。",
        "ko": "이 모델에는 바로 앞 토큰을 보는 헤드가 아직 생기지 않았습니다(바로 앞 토큰에 두는 가중치의 평균이 가장 큰 헤드도 {w:.3f}).",
    },
    "hint_prev_untrained": {
        "ja": "原因はこの演習ではなく学習です。演習 1 の train_step（zero_grad() → backward() → step() の順か）と、学習のセルを実行したかを確かめてから、学習のセルをもう一度実行してください。",
        "ko": "원인은 이 연습 문제가 아니라 학습입니다. 연습 문제 1의 train_step(zero_grad() → backward() → step() 순서인지)과 학습 셀을 실행했는지 확인한 뒤, 학습 셀을 다시 실행하세요.",
    },
    "prev_answer_differs": {
        "ja": "answer_prev_head = {head}、answer_prev_weight = {w:.3f} は、学習したモデルが新しい系列に置く重みと合いません。",
        "ko": "answer_prev_head = {head}, answer_prev_weight = {w:.3f}은(는) 학습한 모델이 새 시퀀스에서 내는 가중치와 맞지 않습니다.",
    },
    "hint_prev_mean_heads": {
        "ja": "重みがヘッドもまとめた平均になっています。mean(dim=(0, 2)) のように、バッチとクエリの軸だけで平均して、ヘッドごとの値 (H,) にしてください。",
        "ko": "가중치가 헤드까지 합친 평균이 되어 있습니다. mean(dim=(0, 2))처럼 배치 축과 쿼리 축으로만 평균해서 헤드별 값 (H,)를 만드세요.",
    },
    "hint_prev_argmax": {
        "ja": "ヘッドの番号が違います。ヘッドごとの値 (H,) のうち最も大きいもの（argmax）が直前のトークンを見るヘッドで、answer_prev_weight はそのヘッドの値です。",
        "ko": "헤드 번호가 다릅니다. 헤드별 값 (H,) 중 가장 큰 것(argmax)이 바로 앞 토큰을 보는 헤드이고, answer_prev_weight는 그 헤드의 값입니다.",
    },
    "hint_prev_index": {
        "ja": "クエリ t がキー t−1 に置く重みは、t = torch.arange(2, T) として w[:, :, t, t - 1] です（形状 (B, H, T−2)）。これをバッチとクエリの軸で平均し、ヘッドごとの値 (H,) のうち最大のものを選びます。",
        "ko": "쿼리 t가 키 t−1에 두는 가중치는 t = torch.arange(2, T)로 두고 w[:, :, t, t - 1]입니다(모양 (B, H, T−2)). 이것을 배치 축과 쿼리 축으로 평균한 헤드별 값 (H,) 중에서 가장 큰 것을 고릅니다.",
    },
    "progress_training": {"ja": "学習", "ko": "학습"},
    "progress_compare": {"ja": "比較の学習", "ko": "비교 학습"},
    "fig_loss_title": {"ja": "学習中の損失", "ko": "학습 중 손실"},
    "fig_step_axis": {"ja": "ステップ", "ko": "스텝"},
    "fig_loss_axis": {"ja": "損失（交差エントロピー）", "ko": "손실(교차 엔트로피)"},
    "fig_compare_title": {
        "ja": "幅 {w} のヘッド 1 つ と 幅 {d} のヘッド {h} つ（シードごと）",
        "ko": "폭 {w}인 헤드 1개와 폭 {d}인 헤드 {h}개(시드별)",
    },
    "fig_compare_label": {"ja": "ヘッド {h} つ × 幅 {d}", "ko": "헤드 {h}개 × 폭 {d}"},
    "fig_final_loss_axis": {"ja": "学習後の損失（対数目盛）", "ko": "학습 후 손실(로그 눈금)"},
    "table_heads": {"ja": "ヘッド数 × 幅", "ko": "헤드 수 × 폭"},
    "table_params": {"ja": "パラメータ数", "ko": "파라미터 수"},
    "table_seed": {"ja": "シード", "ko": "시드"},
    "table_loss": {"ja": "損失", "ko": "손실"},
    "table_acc_first": {"ja": "正解率（先頭）", "ko": "정확도(첫 토큰)"},
    "table_acc_prev": {"ja": "正解率（直前）", "ko": "정확도(바로 앞 토큰)"},
    "table_prev_weight": {"ja": "直前への重み", "ko": "바로 앞 토큰 가중치"},
    "table_first_weight": {"ja": "先頭への重み", "ko": "첫 토큰 가중치"},
    "table_position": {"ja": "位置 t", "ko": "위치 t"},
    "table_token": {"ja": "トークン", "ko": "토큰"},
    "table_answer_first": {"ja": "答え 1（先頭）", "ko": "정답 1(첫 토큰)"},
    "table_answer_prev": {"ja": "答え 2（直前）", "ko": "정답 2(바로 앞 토큰)"},
    "row_before": {"ja": "学習前", "ko": "학습 전"},
    "row_after": {"ja": "学習後", "ko": "학습 후"},
    "row_none": {"ja": "消さない", "ko": "끄지 않음"},
    "table_uniform": {"ja": "一様なら", "ko": "균일할 때"},
    "table_loss_first": {"ja": "損失（問い 1 だけ）", "ko": "손실(질문 1만)"},
    "table_loss_prev": {"ja": "損失（問い 2 だけ）", "ko": "손실(질문 2만)"},
    "table_loss_without": {"ja": "層 ＼ 消したヘッド", "ko": "층 \\ 끈 헤드"},
    "base_loss": {"ja": "ヘッドを消さないときの損失: {v:.3f}", "ko": "헤드를 끄지 않았을 때의 손실: {v:.3f}"},
    "toy_vocab": {"ja": "あいうえおかきくけこさしすせそた", "ko": "가나다라마바사아자차카타파하거너"},
    # ---------------------------------------------------------------- code comments
    "c5_vocab_and_length": {"ja": "語彙数、系列長", "ko": "어휘 수, 시퀀스 길이"},
    "c5_id_to_char": {"ja": "トークン ID → 文字", "ko": "토큰 ID → 문자"},
    "c5_first_everywhere": {"ja": "(B, T)：どの位置も x[:, 0]", "ko": "(B, T): 모든 위치에 x[:, 0]"},
    "c5_previous_at_t": {"ja": "(B, T)：位置 t に x[:, t-1]", "ko": "(B, T): 위치 t에 x[:, t-1]"},
    "c5_no_answer_at_0": {"ja": "位置 0 には答えがない", "ko": "위치 0에는 정답이 없음"},
    "c5_no_answer": {"ja": "−100：答えなし", "ko": "−100: 정답 없음"},
    "c5_token_embedding": {"ja": "トークン埋め込み", "ko": "토큰 임베딩"},
    "c5_position_embedding": {"ja": "位置埋め込み", "ko": "위치 임베딩"},
    "c5_two_answers": {"ja": "位置ごとに答えが2つ", "ko": "위치마다 정답 두 개"},
    "c5_token_ids": {"ja": "idx：(B, T) のトークン ID", "ko": "idx: (B, T) 토큰 ID"},
    "c5_heads_side_by_side": {"ja": "(B, T, E)：ヘッドが横に並んでいる", "ko": "(B, T, E): 헤드가 나란히 놓여 있음"},
    "c5_evaluate_doc": {"ja": "テスト用バッチでの（損失, 問い 1 の正解率, 問い 2 の正解率）", "ko": "테스트 배치에서의 (손실, 질문 1의 정확도, 질문 2의 정확도)"},
}
